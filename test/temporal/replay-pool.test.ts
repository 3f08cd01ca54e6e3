// The replay worker-thread pool, without a Temporal server (the result cache: test/store/).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { evaluateCandidate } from '../../activities/evaluate.js';
import { ReplayPool } from '../../activities/replay-pool.js';
import { parseConfigText } from '../../src/config/load.js';
import { canonicalJson } from '../../src/config/canonical-json.js';
import { planSweep } from '../../src/search/sweepPlan.js';
import type { MaterializedCandidate } from '../../src/search/study/materialize.js';
import { TINY_CONFIG_YAML } from './harness.js';

const config = parseConfigText(TINY_CONFIG_YAML);
const ctx = { config, traceSha256: null };
let candidates: MaterializedCandidate[];
let pool: ReplayPool;

beforeAll(() => {
  const branch = planSweep(config).branches[0];
  candidates = [branch.plan.initial_point, { ...branch.plan.initial_point, agg_max_num_seqs: 256 }].map((p) => branch.materializer.materialize(p));
  expect(candidates.every((m) => m.candidate && !m.rejection)).toBe(true);
  pool = new ReplayPool({ size: 1 });
});
afterAll(async () => {
  await pool.close();
});
afterEach(() => {
  delete process.env.SPICA_TEST_HOOKS;
  delete process.env.SPICA_TEST_HANG_MATCH;
  delete process.env.SPICA_TEST_OOM_MATCH;
});

describe('ReplayPool', () => {
  it('replays on a reused thread exactly what evaluateCandidate computes in-process, in input order', async () => {
    const outcomes = await Promise.all(candidates.map((m) => pool.run({ ctx, candidate: m, timeoutSeconds: 60 })));
    expect(outcomes).toEqual(candidates.map((m) => evaluateCandidate(ctx, m)));
    expect(pool.stats()).toMatchObject({ size: 1, threads: 1, completed: 2, timedOut: 0, crashed: 0 });
  });

  it('terminates a replay past its limit, reports runtime_timeout, and replaces the thread', async () => {
    process.env.SPICA_TEST_HOOKS = '1';
    process.env.SPICA_TEST_HANG_MATCH = canonicalJson(candidates[0].candidate);
    const started = Date.now();
    const [hung, fine] = await Promise.all([
      pool.run({ ctx, candidate: candidates[0], timeoutSeconds: 1 }),
      pool.run({ ctx, candidate: candidates[1], timeoutSeconds: 60 }),
    ]);
    expect(hung).toEqual({ ok: false, reason_category: 'runtime_timeout', reason: 'exceed runtime: replay > 1s' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    // The queued candidate ran on the replacement thread.
    expect(fine.ok).toBe(true);
    expect(pool.stats()).toMatchObject({ threads: 1, timedOut: 1 });
  });

  it('an out-of-memory thread fails only its candidate (replay_runtime)', async () => {
    process.env.SPICA_TEST_HOOKS = '1';
    process.env.SPICA_TEST_OOM_MATCH = canonicalJson(candidates[0].candidate);
    const small = new ReplayPool({ size: 1, maxHeapMb: 48 });
    try {
      const [oom, fine] = await Promise.all([
        small.run({ ctx, candidate: candidates[0], timeoutSeconds: 60 }),
        small.run({ ctx, candidate: candidates[1], timeoutSeconds: 60 }),
      ]);
      expect(oom).toMatchObject({ ok: false, reason_category: 'replay_runtime' });
      expect((oom as { reason: string }).reason).toMatch(/out of memory/);
      expect(fine.ok).toBe(true);
      expect(small.stats().crashed).toBe(1);
    } finally {
      await small.close();
    }
  });

  it('hooks are inert without SPICA_TEST_HOOKS=1', async () => {
    process.env.SPICA_TEST_HANG_MATCH = canonicalJson(candidates[0].candidate);
    expect((await pool.run({ ctx, candidate: candidates[0], timeoutSeconds: 30 })).ok).toBe(true);
  });

  it('a cancelled job is settled at once', async () => {
    const ac = new AbortController();
    ac.abort();
    expect(await pool.run({ ctx, candidate: candidates[0], timeoutSeconds: 30 }, ac.signal)).toMatchObject({ ok: false, reason: 'cancelled' });
  });
});
