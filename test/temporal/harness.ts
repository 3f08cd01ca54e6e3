// Shared helpers for tests against the globalSetup dev server (test/setup/temporalServer.ts).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, inject } from 'vitest';
import { describePollers, hasSweepWorker } from '../../src/cli/temporal/task-queue.js';
import { createSpicaWorker } from '../../src/cli/temporal/worker.js';
import type { SweepResult } from '../../src/search/sweepResult.js';
import { branchWorkflowId } from '../../workflows/sweep.js';
import { isStoredResult, splitOutcome, type SweepOutcome } from '../../workflows/sweep-types.js';
import { localActivityType, type HistoryEvent } from '../support/history-markers.js';
import { spawnSpica, type SpicaProcess } from '../support/spica-process.js';

export interface TestTemporal {
  address: string;
  namespace: string;
  cliPath: string;
  connection: Connection;
  client: Client;
}

export async function connectTestTemporal(): Promise<TestTemporal> {
  const address = inject('temporalAddress');
  if (!address) throw new Error('the Temporal test server was not started (globalSetup test/setup/temporalServer.ts)');
  const namespace = inject('temporalNamespace');
  const connection = await Connection.connect({ address });
  return { address, namespace, cliPath: inject('temporalCliPath'), connection, client: new Client({ connection, namespace }) };
}

/**
 * The test server for one test file: connects before its tests (with a fresh persistent cache
 * directory for the in-process workers) and closes after them. Call at the file's top level; the
 * returned handle is usable inside tests and hooks.
 */
export function useTestTemporal(): TestTemporal {
  let live: TestTemporal | undefined;
  beforeAll(async () => {
    live = await connectTestTemporal();
    process.env.SPICA_CACHE_DIR = mkdtempSync(path.join(os.tmpdir(), 'spica-cache-'));
  });
  afterAll(async () => {
    await live?.connection.close();
  });
  return new Proxy({} as TestTemporal, {
    get: (_, key) => {
      if (!live) throw new Error('useTestTemporal: the test server is not connected yet (use it inside tests or hooks)');
      return live[key as keyof TestTemporal];
    },
  });
}

/** A task queue no other test polls. */
export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/** Runs `fn` while a real Spica worker polls `taskQueue`. */
export async function withSpicaWorker<T>(t: TestTemporal, taskQueue: string, fn: () => Promise<T>): Promise<T> {
  const spica = await createSpicaWorker({ address: t.address, namespace: t.namespace, taskQueue });
  try {
    return await spica.worker.runUntil(fn());
  } finally {
    await spica.close();
  }
}

/** A `spica worker` process on `taskQueue` (plus `args`), once the server lists it polling for workflows and activities. */
export async function spawnPollingWorker(t: TestTemporal, taskQueue: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<SpicaProcess> {
  const w = spawnSpica(['worker', '--address', t.address, '--namespace', t.namespace, '--task-queue', taskQueue, ...args], env);
  for (let i = 0; !hasSweepWorker(await describePollers(t.connection, t.namespace, taskQueue)); i++) {
    if (w.child.exitCode !== null || i > 1500) throw new Error(`spica worker did not poll:\n${w.output().stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return w;
}

/** The history of a sweep's branch child for `mode`. */
export async function branchHistory(t: TestTemporal, sweepId: string, mode = 'agg'): Promise<HistoryEvent[]> {
  return (await t.client.workflow.getHandle(branchWorkflowId(sweepId, mode)).fetchHistory()).events ?? [];
}

/** How a branch history replayed its waves: the replay activities it scheduled, and its local activities' types. */
export function replayWork(events: HistoryEvent[]): { scheduled: string[]; local: string[] } {
  return {
    scheduled: events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []).filter((n) => n === 'replayCandidate' || n === 'replayWave'),
    local: events.flatMap((e) => localActivityType(e) ?? []),
  };
}

/** A small valid SmartSearchConfig: two deployment_mode branches, fixed seed, replays of milliseconds. */
export const SMALL_CONFIG_YAML = `search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  deployment_mode: [agg, disagg]
  backend: [vllm]
  gpu_budget: 2
workload:
  isl: 128
  osl: 64
  concurrency: 4
  num_request_ratio: 4
goal:
  target: throughput
sweep:
  max_rounds: 1
  candidates_per_round: 2
  parallel_evals: 2
  seed: 7
`;

/** The config with one field broken: a workflow fed this must fail, not retry forever. */
export const BAD_CONFIG_YAML = SMALL_CONFIG_YAML.replace('gpu_budget: 2', 'gpu_budget: -3');

export function writeTempConfig(text: string, name = 'config.yaml'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'spica-cfg-'));
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** Like SMALL_CONFIG_YAML under a pareto goal (different config hash, seed 11). */
export const PARETO_CONFIG_YAML = SMALL_CONFIG_YAML.replace('target: throughput', 'target: pareto').replace('seed: 7', 'seed: 11');

/** Captures what a CLI command writes. */
export function captureIo() {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    io: { stdout: (s: string) => void (out.stdout += s), stderr: (s: string) => void (out.stderr += s), isTty: false },
  };
}

export { spawnSpica, type SpicaProcess } from '../support/spica-process.js';

/** The durable-sweep test config: one agg branch on 2 GPUs, two rounds of two candidates (fast replays). */
export const TINY_CONFIG_YAML = `search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  gpu_budget: 2
  deployment_mode: [agg]
  backend: [vllm]
workload:
  isl: 128
  osl: 64
  concurrency: 4
  num_request_ratio: 4
goal:
  target: throughput
sweep:
  max_rounds: 2
  candidates_per_round: 2
  parallel_evals: 2
  seed: 5
`;

/** A sweep workflow's result as an inline SweepResult (its final `progress` left out); throws for a stored reference. */
export function inlineResult(o: SweepOutcome): SweepResult {
  const { outcome } = splitOutcome(o);
  if (isStoredResult(outcome)) throw new Error('expected an inline SweepResult');
  return outcome;
}

/** A SweepResult with what may legitimately differ between runs (id, persistent cache hits) neutralized. */
export function neutralized<T extends { sweep_id: string | null; counts: { cache_hits: number } }>(r: T): T {
  return { ...r, sweep_id: null, counts: { ...r.counts, cache_hits: 0 } };
}

export { localActivityType, type HistoryEvent } from '../support/history-markers.js';

/**
 * Records the CommonJS modules a spica process loaded: pass `nodeOptions` as its NODE_OPTIONS, then
 * `loaded(stderr)` lists them (package paths relative to node_modules).
 */
export function moduleProbe(): { file: string; nodeOptions: string; loaded: (stderr: string) => string[] } {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'spica-probe-')), 'loaded-modules.cjs');
  writeFileSync(
    file,
    "process.on('exit', () => process.stderr.write('\\nLOADED ' + JSON.stringify(Object.keys(require.cache).map((f) => f.split('node_modules/').pop())) + '\\n'));\n",
  );
  return { file, nodeOptions: `--require ${file}`, loaded: (stderr) => JSON.parse(/LOADED (.*)/.exec(stderr)![1]) as string[] };
}
