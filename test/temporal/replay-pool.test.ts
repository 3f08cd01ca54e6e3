// The replay worker-thread pool and the persistent result cache, without a Temporal server.
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { evaluateCandidate } from '../../activities/evaluate.js';
import { ReplayPool } from '../../activities/replay-pool.js';
import { isCacheable, ReplayResultCache } from '../../activities/result-cache.js';
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

describe('ReplayResultCache', () => {
  const hash = 'a'.repeat(64);
  const ok = { ok: true as const, metrics: { output_throughput_tok_s: 1 } };

  it('round-trips outcomes per simulator version, atomically (no tmp files left)', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'spica-cache-'));
    const cache = new ReplayResultCache(dir, 'spica-replay/1');
    expect(cache.get(hash)).toBeNull();
    expect(cache.put(hash, ok)).toBe(true);
    expect(cache.get(hash)).toEqual(ok);
    expect(new ReplayResultCache(dir, 'spica-replay/2').get(hash)).toBeNull();
    const files = readdirSync(path.join(dir, 'spica-replay_1', 'aa'));
    expect(files).toEqual([`${hash}.json`]);
  });

  it('never stores timeouts or runtime failures; a corrupt or foreign entry is a miss', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'spica-cache-'));
    const cache = new ReplayResultCache(dir, 'v');
    const timeout = { ok: false as const, reason_category: 'runtime_timeout' as const, reason: 'exceed runtime: replay > 1s' };
    const crash = { ok: false as const, reason_category: 'replay_runtime' as const, reason: 'boom' };
    const kv = { ok: false as const, reason_category: 'kv_capacity' as const, reason: 'no room' };
    expect([timeout, crash, kv, ok].map(isCacheable)).toEqual([false, false, true, true]);
    expect(cache.put(hash, timeout)).toBe(false);
    expect(existsSync(path.join(dir, 'v'))).toBe(false);
    expect(cache.put(hash, kv)).toBe(true);
    writeFileSync(path.join(dir, 'v', 'aa', `${hash}.json`), '{"spec_hash":"other","outcome":{"ok":true}}');
    expect(cache.get(hash)).toBeNull();
    writeFileSync(path.join(dir, 'v', 'aa', `${hash}.json`), '{torn');
    expect(cache.get(hash)).toBeNull();
    expect(() => cache.get('../../etc/passwd')).toThrow(/not a spec hash/);
  });
});
