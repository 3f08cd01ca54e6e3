// The durable sweep end to end on the shared dev server: the workflows must produce exactly the
// SweepResult of runSweepLocal (sweep_id and cache-hit counts aside), with one or two workers; the
// persistent cache answers a re-sweep; queries show progress and trials; a hung replay times out.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runLocalSweep } from '../../activities/local-sweep.js';
import { replayPool } from '../../activities/replay-pool.js';
import { resolveSweepOutcome } from '../../src/cli/sweeps/sweep-outcome.js';
import { createSpicaWorker } from '../../src/cli/temporal/worker.js';
import { parseConfigText } from '../../src/config/load.js';
import { canonicalJson } from '../../src/config/canonical-json.js';
import type { SweepResult } from '../../src/search/sweepResult.js';
import { SPICA_GOAL, SPICA_HARDWARE, SPICA_MODEL } from '../../workflows/search-attributes.js';
import { branchWorkflowId, progressQuery, stopSignal, stopUpdate, trialsQuery, type sweep } from '../../workflows/sweep.js';
import { isStoredResult, splitOutcome, type SweepOutcome } from '../../workflows/sweep-types.js';
import { connectTestTemporal, neutralized, TINY_CONFIG_YAML, uniqueTaskQueue, withSpicaWorker, type TestTemporal } from './harness.js';

let t: TestTemporal;
let local: SweepResult;
const config = parseConfigText(TINY_CONFIG_YAML);

function freshCacheDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'spica-cache-'));
  process.env.SPICA_CACHE_DIR = dir;
  return dir;
}

function inline(o: SweepOutcome): SweepResult {
  const { outcome } = splitOutcome(o);
  if (isStoredResult(outcome)) throw new Error('expected an inline SweepResult');
  return outcome;
}

beforeAll(async () => {
  t = await connectTestTemporal();
  local = await runLocalSweep(config);
});
afterAll(async () => {
  await t?.connection.close();
});
afterEach(() => {
  delete process.env.SPICA_TEST_HOOKS;
  delete process.env.SPICA_TEST_HANG_MATCH;
});

describe('durable sweep', () => {
  it('equals runSweepLocal; progress, trials and search attributes are visible', async () => {
    freshCacheDir();
    const taskQueue = uniqueTaskQueue('durable');
    const workflowId = `straight-${taskQueue}`;
    expect(local.counts.evaluated).toBeGreaterThanOrEqual(4);
    await withSpicaWorker(t, taskQueue, async () => {
      const handle = await t.client.workflow.start<typeof sweep>('sweep', { workflowId, taskQueue, args: [config] });
      const result = inline(await handle.result());
      expect(result.sweep_id).toBe(workflowId);
      expect(neutralized(result)).toEqual(neutralized(local));

      const progress = await handle.query(progressQuery);
      expect(progress.phase).toBe('done');
      expect(progress.branches).toHaveLength(1);
      const b = progress.branches[0];
      expect(b).toMatchObject({
        deployment_mode: 'agg',
        workflowId: branchWorkflowId(workflowId, 'agg'),
        status: 'done',
        round: 2,
        trials_done: local.counts.evaluated,
        trials_wanted: 4,
        feasible: local.counts.feasible,
        eta_seconds: 0,
        stop_reason: 'max_rounds',
      });
      const bestId = (local.views as { top_n: string[] }).top_n[0];
      expect(b.best?.value).toBe(local.candidates.find((c) => c.id === bestId)!.score);

      const trials = await handle.query(trialsQuery);
      expect(trials.map((x) => [x.status, x.spica_projection?.parallel_config])).toEqual(
        local.candidates.map((c) => [c.status, c.spica_projection?.parallel_config]),
      );

      const description = await handle.describe();
      expect(description.typedSearchAttributes.get(SPICA_MODEL)).toBe('meta-llama/Llama-3.1-8B-Instruct');
      expect(description.typedSearchAttributes.get(SPICA_HARDWARE)).toBe('h100_sxm');
      expect(description.typedSearchAttributes.get(SPICA_GOAL)).toBe('throughput');
    });
  });

  let sharedCache = '';

  it('equals runSweepLocal with two workers polling the task queue', async () => {
    sharedCache = freshCacheDir();
    const taskQueue = uniqueTaskQueue('two-workers');
    const workers = await Promise.all(
      ['w1', 'w2'].map((identity) => createSpicaWorker({ address: t.address, namespace: t.namespace, taskQueue, identity })),
    );
    try {
      const run = t.client.workflow.execute<typeof sweep>('sweep', { workflowId: `two-${taskQueue}`, taskQueue, args: [config] });
      const [result] = await Promise.all(workers.map((w) => w.worker.runUntil(run)));
      expect(neutralized(inline(result))).toEqual(neutralized(local));
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });

  it('a re-sweep is answered by the persistent cache: no replay runs the second time', async () => {
    expect(sharedCache).not.toBe('');
    process.env.SPICA_CACHE_DIR = sharedCache;
    const taskQueue = uniqueTaskQueue('resweep');
    const before = replayPool().stats().completed;
    const result = inline(
      await withSpicaWorker(t, taskQueue, () =>
        t.client.workflow.execute<typeof sweep>('sweep', { workflowId: `resweep-${taskQueue}`, taskQueue, args: [config] }),
      ),
    );
    expect(replayPool().stats().completed).toBe(before);
    expect(neutralized(result)).toEqual(neutralized(local));
    const replayed = local.candidates.filter((c) => !c.cache_hit).length;
    expect(result.counts.cache_hits).toBe(local.counts.cache_hits + replayed);
  });

  it('a SweepResult over the inline limit is kept in the result store and returned by reference', async () => {
    process.env.SPICA_CACHE_DIR = sharedCache;
    process.env.SPICA_RESULT_STORE = mkdtempSync(path.join(os.tmpdir(), 'spica-results-'));
    process.env.SPICA_RESULT_INLINE_LIMIT_BYTES = '2000';
    try {
      const taskQueue = uniqueTaskQueue('stored');
      const workflowId = `stored-${taskQueue}`;
      const outcome = await withSpicaWorker(t, taskQueue, () =>
        t.client.workflow.execute<typeof sweep>('sweep', { workflowId, taskQueue, args: [config] }),
      );
      if (!isStoredResult(outcome)) throw new Error('expected a stored result reference');
      expect(outcome).toMatchObject({ stored: true, sweep_id: workflowId, counts: { evaluated: local.counts.evaluated } });
      expect(path.dirname(outcome.path)).toBe(process.env.SPICA_RESULT_STORE);
      expect(neutralized(await resolveSweepOutcome(outcome, workflowId))).toEqual(neutralized(local));
      writeFileSync(outcome.path, '{}');
      await expect(resolveSweepOutcome(outcome, workflowId)).rejects.toThrow(/changed since the sweep wrote it/);
    } finally {
      delete process.env.SPICA_RESULT_STORE;
      delete process.env.SPICA_RESULT_INLINE_LIMIT_BYTES;
    }
  });

  it('a replay that never ends becomes timed_out after max_eval_seconds and the sweep completes', async () => {
    freshCacheDir();
    const quick = parseConfigText(TINY_CONFIG_YAML.replace('  seed: 5', '  seed: 5\n  max_eval_seconds: 2'));
    const victim = local.candidates[1].config;
    process.env.SPICA_TEST_HOOKS = '1';
    process.env.SPICA_TEST_HANG_MATCH = canonicalJson(victim);
    const taskQueue = uniqueTaskQueue('timeout');
    const result = inline(
      await withSpicaWorker(t, taskQueue, () =>
        t.client.workflow.execute<typeof sweep>('sweep', { workflowId: `timeout-${taskQueue}`, taskQueue, args: [quick] }),
      ),
    );
    const victims = result.candidates.filter((c) => canonicalJson(c.config) === canonicalJson(victim));
    expect(victims.length).toBeGreaterThanOrEqual(1);
    for (const c of victims) {
      expect(c).toMatchObject({ status: 'timed_out', reason_category: 'runtime_timeout', reason: 'exceed runtime: replay > 2s', score: null, metrics: null });
    }
    expect(result.counts.feasible).toBeGreaterThanOrEqual(2);
    expect(result.branches[0].stop_reason).not.toBe('stopped');
  });

  it('stop (update or signal) finishes the sweep with what is done', async () => {
    freshCacheDir();
    // Every replay hangs until max_eval_seconds, so the stop lands while the first wave is running.
    const slow = parseConfigText(
      TINY_CONFIG_YAML.replace('max_rounds: 2', 'max_rounds: 5').replace('parallel_evals: 2', 'parallel_evals: 1').replace('  seed: 5', '  seed: 5\n  max_eval_seconds: 1'),
    );
    process.env.SPICA_TEST_HOOKS = '1';
    process.env.SPICA_TEST_HANG_MATCH = '"backend":"vllm"';
    const taskQueue = uniqueTaskQueue('stop');
    await withSpicaWorker(t, taskQueue, async () => {
      const viaUpdate = await t.client.workflow.start<typeof sweep>('sweep', { workflowId: `stop-u-${taskQueue}`, taskQueue, args: [slow] });
      const viaSignal = await t.client.workflow.start<typeof sweep>('sweep', { workflowId: `stop-s-${taskQueue}`, taskQueue, args: [slow] });
      // Both first waves are on the pool's threads: the stops land mid-wave. Without them each branch
      // would go on for 22 one-second waves, then stall.
      await expect.poll(() => replayPool().stats().busy, { timeout: 30_000, interval: 100 }).toBe(2);
      const ack = await viaUpdate.executeUpdate(stopUpdate);
      expect(ack.accepted).toBe(true);
      await viaSignal.signal(stopSignal);
      for (const h of [viaUpdate, viaSignal]) {
        const result = inline(await h.result());
        expect(result.branches[0].stop_reason).toBe('stopped');
        expect(result.counts.evaluated).toBeGreaterThanOrEqual(1);
        expect(result.counts.evaluated).toBeLessThan(10);
        expect(result.candidates.every((c) => c.status === 'timed_out')).toBe(true);
        expect((await h.query(progressQuery)).stop_requested).toBe(true);
      }
    });
  });
});
