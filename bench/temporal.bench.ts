// Temporal overhead of the durable sweep (issue 8; CLARIFICATIONS §E: replays of about 1 s each).
// (a) The same sweep — one agg branch, ~64 trials, parallel_evals 2 — through `runSweepLocal` with a
//     local evaluator that runs each wave's replays concurrently on the same 2-thread ReplayPool
//     (baseline), and as the `sweep` workflow on a bench-local dev server with an in-process worker
//     (2 activity slots, same pool, fresh result cache). Prints both wall times and the ratio
//     (target ≤ 1.15). Bundling and thread boot happen before timing.
// (b) Crash pick-up of a long branch: a `spica worker` child process drives a branch to ~500 finished
//     trials (cheap replays), is SIGKILLed, and a fresh in-process worker takes over. Prints the time
//     until the fresh worker answers a progress query (full history replay, no sticky cache) and until
//     the branch records its next trial, against the query latency on the warm worker before the crash.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { localEvaluator } from '../activities/local-sweep.js';
import { configureReplayPool, replayPool } from '../activities/replay-pool.js';
import { traceInputsFor } from '../activities/sweep-inputs.js';
import { provisionTemporalCli } from '../src/cli/temporal/cli-binary.js';
import { loadDevServerConfig } from '../src/cli/temporal/dev-config.js';
import { startDevServer } from '../src/cli/temporal/dev-server.js';
import { freePort } from '../src/cli/temporal/free-port.js';
import { createSpicaWorker, spicaWorkflowBundle } from '../src/cli/temporal/worker.js';
import type { SmartSearchConfig } from '../src/config/schema.js';
import { parseConfigText } from '../src/config/load.js';
import { runSweepLocal, type CandidateEvaluator } from '../src/search/runSweepLocal.js';
import type { SweepResult } from '../src/search/sweepResult.js';
import type { EvalOutcome } from '../src/search/trial.js';
import { branchProgressQuery } from '../workflows/messages.js';
import { branchWorkflowId, progressQuery, type sweep } from '../workflows/sweep.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const POOL = 2;

const configYaml = (w: { isl: number; osl: number; concurrency: number; ratio: number }, rounds: number) => `search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  gpu_budget: 2
  deployment_mode: [agg]
  backend: [vllm]
workload:
  isl: ${w.isl}
  osl: ${w.osl}
  concurrency: ${w.concurrency}
  num_request_ratio: ${w.ratio}
goal:
  target: throughput
sweep:
  max_rounds: ${rounds}
  candidates_per_round: 2
  parallel_evals: 2
  seed: 5
`;
// ~1 s per replay on this machine (≈1.4 s at ratio 64, serial, measured while writing this bench).
const SECOND_WORKLOAD = { isl: 4096, osl: 1024, concurrency: 48, ratio: 45 };
// ~0.1 s per replay.
const CHEAP_WORKLOAD = { isl: 128, osl: 64, concurrency: 4, ratio: 4 };
// The optimizer's initial design adds a few trials: 28 rounds of 2 land at ~64 trials.
const OVERHEAD_ROUNDS = 28;
const PICKUP_TRIALS = 500;

const strip = (r: SweepResult) => JSON.stringify({ ...r, sweep_id: null, counts: { ...r.counts, cache_hits: 0 } });
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** runSweepLocal's evaluator, but each wave's replays run concurrently on the shared replay pool. */
function pooledEvaluator(config: SmartSearchConfig, traceSha256: string | null, replayMs: number[]): CandidateEvaluator {
  return {
    ...localEvaluator(config, traceSha256),
    evaluate: (candidates) =>
      Promise.all(
        candidates.map(async (m): Promise<EvalOutcome> => {
          const start = performance.now();
          const o = await replayPool().run({ ctx: { config, traceSha256 }, candidate: m, timeoutSeconds: config.sweep.max_eval_seconds });
          if (!m.rejection) replayMs.push(performance.now() - start);
          return o;
        }),
      ),
  };
}

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

const eventMs = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;

/** The first workflow task started at/after `sinceEpochMs` that completed: when it started, how long it took. */
function firstWorkflowTaskAfter(events: HistoryEvent[], sinceEpochMs: number): { startedAfterMs: number; durationMs: number } | null {
  for (const e of events) {
    const startedId = e.workflowTaskCompletedEventAttributes?.startedEventId;
    if (startedId == null) continue;
    const started = events.find((x) => Number(x.eventId) === Number(startedId));
    const startMs = eventMs(started?.eventTime);
    if (startMs >= sinceEpochMs) return { startedAfterMs: startMs - sinceEpochMs, durationMs: eventMs(e.eventTime) - startMs };
  }
  return null;
}

async function trialsDone(handle: WorkflowHandle<typeof sweep>): Promise<number> {
  const p = await handle.query(progressQuery);
  return p.branches.reduce((n, b) => n + b.trials_done, 0);
}

async function overhead(client: Client, address: string, namespace: string): Promise<void> {
  const config = parseConfigText(configYaml(SECOND_WORKLOAD, OVERHEAD_ROUNDS));
  const trace = traceInputsFor(config);
  configureReplayPool({ size: POOL });
  const pool = replayPool();
  pool.prewarm();
  while (pool.stats().threads < POOL) await sleep(50);

  const replayMs: number[] = [];
  let t0 = performance.now();
  const local = await runSweepLocal(config, { evaluator: pooledEvaluator(config, trace.traceSha256, replayMs), traceRequests: trace.traceRequests });
  const localMs = performance.now() - t0;

  process.env.SPICA_CACHE_DIR = mkdtempSync(path.join(os.tmpdir(), 'spica-bench-cache-'));
  const taskQueue = 'bench-overhead';
  const spica = await createSpicaWorker({ address, namespace, taskQueue, concurrency: POOL });
  try {
    const durable = await spica.worker.runUntil(async () => {
      // Warm-up outside the timing: a tiny sweep runs the first workflow tasks and activities.
      await client.workflow.execute<typeof sweep>('sweep', {
        workflowId: 'bench-warmup', taskQueue, args: [parseConfigText(configYaml(CHEAP_WORKLOAD, 1))],
      });
      const start = performance.now();
      const result = (await client.workflow.execute<typeof sweep>('sweep', { workflowId: 'bench-overhead', taskQueue, args: [config] })) as SweepResult;
      const ms = performance.now() - start;
      // The same sweep again: every replay is a persistent-cache hit, so this is orchestration alone.
      const warmStart = performance.now();
      const warm = (await client.workflow.execute<typeof sweep>('sweep', { workflowId: 'bench-overhead-warm', taskQueue, args: [config] })) as SweepResult;
      return { ms, result, warmMs: performance.now() - warmStart, warmHits: warm.counts.cache_hits };
    });
    if (strip(durable.result) !== strip(local)) throw new Error('the workflow result differs from runSweepLocal');
    const meanReplay = replayMs.reduce((a, b) => a + b, 0) / Math.max(1, replayMs.length);
    console.log(`(a) ${local.counts.evaluated} trials, parallel_evals 2, ${POOL} replay threads; replay ~${secs(meanReplay)} each (mean of ${replayMs.length}, 2 concurrent)`);
    console.log(`    runSweepLocal, pooled evaluator (baseline): ${secs(localMs)}`);
    console.log(`    sweep workflow, fresh cache:                ${secs(durable.ms)}`);
    console.log(`    ratio workflow / runSweepLocal:             ${(durable.ms / localMs).toFixed(3)}× (target ≤ 1.15)`);
    console.log(`    sweep workflow, warm cache (no replay):     ${secs(durable.warmMs)} = ${(durable.warmMs / local.counts.evaluated).toFixed(0)} ms orchestration per trial (${durable.warmHits} cache hits)`);
  } finally {
    await spica.close();
  }
}

async function pickup(client: Client, address: string, namespace: string): Promise<void> {
  const config = parseConfigText(configYaml(CHEAP_WORKLOAD, Math.ceil(PICKUP_TRIALS / 2) + 40));
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'spica-bench-cache-'));
  process.env.SPICA_CACHE_DIR = cacheDir;
  const taskQueue = 'bench-pickup';
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'bin/spica.js'), 'worker', '--address', address, '--namespace', namespace, '--task-queue', taskQueue, '--concurrency', String(POOL), '--cache-dir', cacheDir],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20_000)));
  let gone: string | null = null;
  const exited = new Promise((r) => child.on('exit', (code, signal) => r((gone = `code ${code}, signal ${signal}`))));
  const handle = await client.workflow.start<typeof sweep>('sweep', { workflowId: 'bench-pickup', taskQueue, args: [config] });
  const branch = client.workflow.getHandle(branchWorkflowId(handle.workflowId, 'agg'));
  try {
    const buildStart = performance.now();
    let done = 0;
    while (done < PICKUP_TRIALS) {
      if (gone) throw new Error(`the spica worker exited early (${gone}) at ${done} trials:\n${stderr}`);
      await sleep(500);
      done = await trialsDone(handle).catch(() => 0);
    }
    const buildMs = performance.now() - buildStart;
    // Query latency on the warm worker (workflow cached in memory): the baseline.
    const w0 = performance.now();
    const atKillProgress = await branch.query(branchProgressQuery);
    const warmQueryMs = performance.now() - w0;
    child.kill('SIGKILL');
    await exited;
    const atKill = await branch.describe();
    // Let the server give up on the dead worker's wave (heartbeat timeout) so the pick-up below is
    // history replay and the re-run wave, not the wait for the timeout.
    while ((await branch.describe()).raw.pendingActivities?.some((a) => a.state === 2 /* STARTED */)) await sleep(250);

    await spicaWorkflowBundle(); // built in (a): pick-up is measured from worker creation
    const t0 = performance.now();
    const t0Epoch = Date.now();
    const fresh = await createSpicaWorker({ address, namespace, taskQueue, concurrency: POOL });
    try {
      const { firstTask, progressMs } = await fresh.worker.runUntil(async () => {
        // The first workflow task the fresh worker completes on the branch replays its whole current
        // run (re-telling every trial; asks come from local-activity markers) before it can add a command.
        let firstTask: { startedAfterMs: number; durationMs: number } | null = null;
        while (!firstTask) {
          await sleep(500);
          firstTask = firstWorkflowTaskAfter((await branch.fetchHistory()).events ?? [], t0Epoch);
        }
        // Queries time out while the replay runs: poll until one shows a new trial.
        while ((await branch.query(branchProgressQuery).then((p) => p.trials_done, () => -1)) <= atKillProgress.trials_done) await sleep(100);
        return { firstTask, progressMs: performance.now() - t0 };
      });
      console.log(`(b) branch built to ${atKillProgress.trials_done} trials in ${secs(buildMs)} by a \`spica worker\` process, then SIGKILLed`);
      console.log(`    branch history at the crash:   ${atKill.historyLength} events in its current run (${atKillProgress.continued_as_new} continue-as-new hand-overs before it)`);
      console.log(`    warm worker, branch progress query (baseline):   ${secs(warmQueryMs)}`);
      console.log(`    fresh worker, first branch workflow task:        ${secs(firstTask.durationMs)} (history replay; started ${secs(firstTask.startedAfterMs)} after worker creation; ${(firstTask.durationMs / warmQueryMs).toFixed(0)}× the warm query)`);
      console.log(`    fresh worker, next trial visible:                ${secs(progressMs)} after worker creation`);
    } finally {
      await handle.terminate('benchmark done').catch(() => undefined);
      await fresh.close();
    }
  } finally {
    if (!gone) child.kill('SIGKILL');
    await handle.terminate('benchmark done').catch(() => undefined);
  }
}

export async function run(): Promise<void> {
  const cli = await provisionTemporalCli({ log: () => undefined });
  const server = await startDevServer(
    { ...loadDevServerConfig(), port: await freePort(), ui: { enabled: false }, db_filename: null, log_level: 'error', startup_timeout_seconds: 90 },
    { cliPath: cli.path, reuse: false },
  );
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });
  try {
    // BENCH_TEMPORAL_ONLY=overhead|pickup runs one part.
    const only = process.env.BENCH_TEMPORAL_ONLY;
    if (only !== 'pickup') await overhead(client, server.address, server.namespace);
    if (only !== 'overhead') await pickup(client, server.address, server.namespace);
  } finally {
    await replayPool().close();
    await connection.close();
    await server.stop();
  }
}
