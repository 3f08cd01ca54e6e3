// Continue-as-new: a dev server of its own with `limit.historyCount.suggestContinueAsNew` lowered so
// the branch study hands over at every round boundary; the result must equal the uninterrupted one.
import { readTrialChunks } from '../../activities/trial-chunks.js';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runLocalSweep } from '../../activities/local-sweep.js';
import { loadDevServerConfig } from '../../src/cli/temporal/dev-config.js';
import { startDevServer, type DevServerHandle } from '../../src/cli/temporal/dev-server.js';
import { freePort } from '../../src/cli/temporal/free-port.js';
import { createSpicaWorker } from '../../src/cli/temporal/worker.js';
import { parseConfigText } from '../../src/config/load.js';
import { branchWorkflowId, progressQuery, type sweep } from '../../workflows/sweep.js';
import { isStoredResult, splitOutcome, type BranchStudyInput } from '../../workflows/sweep-types.js';
import { neutralized, TINY_CONFIG_YAML, uniqueTaskQueue } from './harness.js';
import { largeSweepYaml } from '../support/large-sweep.js';
import { liveSweepProgress } from '../../src/cli/sweeps/live-progress.js';

let server: DevServerHandle;
let connection: Connection;
let client: Client;

beforeAll(async () => {
  const base = loadDevServerConfig();
  server = await startDevServer(
    {
      ...base,
      port: await freePort(),
      ui: { enabled: false },
      db_filename: null,
      log_level: 'error',
      startup_timeout_seconds: 90,
      dynamic_config: { ...base.dynamic_config, 'limit.historyCount.suggestContinueAsNew': 10 },
    },
    { cliPath: inject('temporalCliPath'), reuse: false },
  );
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection, namespace: server.namespace });
});
afterAll(async () => {
  await connection?.close();
  await server?.stop();
});

describe('branchStudy continue-as-new', () => {
  it('hands over at round boundaries with compact trials and still equals the straight run', async () => {
    process.env.SPICA_CACHE_DIR = mkdtempSync(path.join(os.tmpdir(), 'spica-cache-'));
    const config = parseConfigText(TINY_CONFIG_YAML.replace('max_rounds: 2', 'max_rounds: 3'));
    const local = await runLocalSweep(config);
    const taskQueue = uniqueTaskQueue('can');
    const workflowId = `can-${taskQueue}`;
    const spica = await createSpicaWorker({ address: server.address, namespace: server.namespace, taskQueue });
    try {
      const handle = await client.workflow.start<typeof sweep>('sweep', { workflowId, taskQueue, args: [config] });
      // Queries of a closed workflow replay it, so ask while the worker still runs.
      const [result, progress] = await spica.worker.runUntil(async () => {
        const r = await handle.result();
        return [r, await handle.query(progressQuery)] as const;
      });
      const { outcome: inline } = splitOutcome(result);
      if (isStoredResult(inline)) throw new Error('expected an inline result');
      expect(neutralized(inline)).toEqual(neutralized(local));
      expect(inline.branches[0].rounds).toBe(3);

      expect(progress.branches[0].continued_as_new).toBe(2);
      // The chain is visible on the server: two runs ended by continue-as-new, the last one completed.
      const runs: { runId: string; status: string }[] = [];
      const childId = branchWorkflowId(workflowId, 'agg');
      for await (const w of client.workflow.list({ query: `WorkflowId = '${childId}'` })) runs.push({ runId: w.runId, status: w.status.name });
      expect(runs.map((r) => r.status).sort()).toEqual(['COMPLETED', 'CONTINUED_AS_NEW', 'CONTINUED_AS_NEW']);

      // What crossed the hand-over: no trials, only counters — the finished rounds' trials are in the
      // store, one chunk per round, compact (no candidate, hashed key, well under 1 KB each).
      for (const run of runs.filter((r) => r.status === 'CONTINUED_AS_NEW')) {
        const history = await client.workflow.getHandle(childId, run.runId).fetchHistory();
        const can = history.events!.find((e) => e.workflowExecutionContinuedAsNewEventAttributes)!;
        const payload = can.workflowExecutionContinuedAsNewEventAttributes!.input!.payloads![0];
        const carried = JSON.parse(Buffer.from(payload.data!).toString('utf8')) as BranchStudyInput;
        expect(carried.carry!.state.trials).toEqual([]);
        expect(carried.carry!.state.stored_trials).toBeGreaterThanOrEqual(2);
        expect(carried.carry!.tally!.trials).toBe(carried.carry!.state.stored_trials);
        // Under the chain's first run id (RUN_SCOPED_CHUNKS_PATCH), carried across the hand-over.
        const firstRunId = history.events![0].workflowExecutionStartedEventAttributes!.firstExecutionRunId;
        expect(runs.map((r) => r.runId)).toContain(firstRunId);
        expect(carried.carry!.chunk_prefix).toBe(`${childId}/${firstRunId}`);
        const chunks = await readTrialChunks({ prefix: carried.carry!.chunk_prefix!, chunks: carried.carry!.chunks! });
        expect(chunks.flat()).toHaveLength(carried.carry!.state.stored_trials!);
        for (const trial of chunks.flat()) {
          expect(trial.candidate).toBeNull();
          expect(trial.key).toMatch(/^[0-9a-f]{64}$/);
          expect(JSON.stringify(trial).length).toBeLessThan(1000);
        }
      }
    } finally {
      await spica.close();
    }
  });

  it('a long branch signals its parent once a round for 32 rounds, then in power-of-two rounds (bounded parent history)', { timeout: 300_000 }, async () => {
    process.env.SPICA_CACHE_DIR = mkdtempSync(path.join(os.tmpdir(), 'spica-cache-'));
    const yaml = largeSweepYaml({ policy: 'rapid' })
      .replace('deployment_mode: [agg, disagg]', 'deployment_mode: [agg]')
      .replace('max_rounds: 120', 'max_rounds: 70')
      .replace('candidates_per_round: 64', 'candidates_per_round: 1')
      .replace('parallel_evals: 64', 'parallel_evals: 1');
    const config = parseConfigText(yaml);
    const taskQueue = uniqueTaskQueue('signals');
    const workflowId = `signals-${taskQueue}`;
    const spica = await createSpicaWorker({ address: server.address, namespace: server.namespace, taskQueue });
    try {
      const handle = await client.workflow.start<typeof sweep>('sweep', { workflowId, taskQueue, args: [config] });
      let liveAhead = false;
      const result = await spica.worker.runUntil(async () => {
        const done = handle.result();
        let finished = false;
        void done.finally(() => (finished = true)).catch(() => undefined);
        // The CLI's view reads each running branch itself: never behind what the parent heard.
        while (!finished) {
          // Parent first, then the branch: the branch's count only grows, so what it says after the
          // parent answered is never behind what the parent had heard (queried together they race).
          const parent = await handle.query(progressQuery).catch(() => null);
          const live = parent ? await liveSweepProgress(client, handle).catch(() => null) : null;
          if (parent && live && parent.branches[0] && live.branches[0]) {
            expect(live.branches[0].trials_recorded).toBeGreaterThanOrEqual(parent.branches[0].trials_recorded);
            if (live.branches[0].trials_recorded > parent.branches[0].trials_recorded) liveAhead = true;
          }
          await new Promise((r) => setTimeout(r, 250));
        }
        return done;
      });
      // (The result is over the inline limit, so it comes back as a stored reference with its counts.)
      expect(result.counts.feasible).toBeGreaterThanOrEqual(70);
      const history = await handle.fetchHistory();
      const signals = history.events!.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'branchProgress').length;
      // Rounds 1..32, round 64 and the final one — not one per round (70+), even across a continue-as-new per round.
      expect(signals).toBeGreaterThanOrEqual(33);
      expect(signals).toBeLessThanOrEqual(35);
      expect(liveAhead).toBe(true);
    } finally {
      await spica.close();
    }
  });
});
