import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { kvLoadConcurrency, syntheticRequestCount } from '../../src/replay/workload/kv-load.js';
import { mooncakePlan, parseMooncake } from '../../src/replay/workload/mooncake.js';
import { buildWorkloadPlan } from '../../src/replay/workload/plan.js';
import { promptBlockHashes } from '../../src/replay/workload/request.js';
import { syntheticPlan } from '../../src/replay/workload/synthetic.js';
import { WorkloadSchema } from '../../src/config/schema.js';

const row = (o: Record<string, unknown>) => JSON.stringify(o);

describe('Mooncake traces', () => {
  it('a bad line is an error naming its line number and the problem', () => {
    const text = [row({ timestamp: 0, output_length: 5, hash_ids: [1] }), '', row({ timestamp: 5, output_length: 5, hash_ids: [1, 'x'] })].join('\n');
    expect(() => parseMooncake(text, 512, 't.jsonl')).toThrow(InputError);
    expect(() => parseMooncake(text, 512, 't.jsonl')).toThrow(/t\.jsonl:3: hash_ids\[1\]/);
    expect(() => parseMooncake('{"output_length": 3}', 512)).toThrow(/:1: 'hash_ids' is required/);
    expect(() => parseMooncake(row({ hash_ids: [1] }), 512)).toThrow(/:1: 'output_length' is required/);
    expect(() => parseMooncake('{oops', 512)).toThrow(/:1: not valid JSON/);
    expect(() => parseMooncake(row({ hash_ids: [1], output_length: 1, timestamp: -4 }), 512)).toThrow(/'timestamp'/);
  });

  it('clamps input_length to len(hash_ids) × trace_block_size and defaults it to that', () => {
    const rows = parseMooncake([row({ input_length: 5000, output_length: 3, hash_ids: [1, 2] }), row({ output_length: 3, hash_ids: [1, 2, 3] }), row({ input_length: 700, output_length: 3, hash_ids: [1, 2] })].join('\n'), 512);
    expect(rows.map((r) => r.inputLength)).toEqual([1024, 1536, 700]);
  });

  it('shifts the first timestamp to 0 and divides gaps by arrival_speedup_ratio', () => {
    const rows = parseMooncake([1000, 1500, 3000].map((t) => row({ timestamp: t, output_length: 2, hash_ids: [t] })).join('\n'), 512);
    const plan = mooncakePlan(rows, { traceBlockSize: 512, arrivalSpeedupRatio: 2, replayConcurrency: null });
    expect(plan.sessions.map((s) => s.startMs)).toEqual([0, 250, 1000]);
    expect(plan.concurrency).toBeNull();
    const closed = mooncakePlan(rows, { traceBlockSize: 512, arrivalSpeedupRatio: 1, replayConcurrency: 2 });
    expect(closed.concurrency).toBe(2);
    expect(closed.sessions.every((s) => s.startMs === null)).toBe(true);
  });

  it('groups session turns; a later turn waits `delay` (or the timestamp gap) after the previous completes', () => {
    const text = [
      row({ timestamp: 0, session_id: 'a', output_length: 2, hash_ids: [1] }),
      row({ timestamp: 100, output_length: 2, hash_ids: [9] }),
      row({ timestamp: 400, session_id: 'a', delay: 50, output_length: 2, hash_ids: [1, 2] }),
      row({ timestamp: 900, session_id: 'a', output_length: 2, hash_ids: [1, 2, 3] }),
    ].join('\n');
    const plan = mooncakePlan(parseMooncake(text, 512), { traceBlockSize: 512, arrivalSpeedupRatio: 1, replayConcurrency: null });
    expect(plan.sessions).toHaveLength(2);
    expect(plan.sessions[0].turns.map((t) => t.delayMs)).toEqual([0, 50, 500]);
    expect(plan.numRequests).toBe(4);
  });
});

describe('block hashes', () => {
  it('equal prefixes hash equal, engine blocks subdivide trace blocks, and the chain makes position matter', () => {
    const a = promptBlockHashes({ keys: [7, 8], lens: [512, 512] }, 1024, 64);
    const b = promptBlockHashes({ keys: [7, 9], lens: [512, 512] }, 1000, 64);
    expect(a.length).toBe(16);
    expect(b.length).toBe(15);
    expect(Array.from(a.slice(0, 8))).toEqual(Array.from(b.slice(0, 8)));
    expect(a[8]).not.toBe(b[8]);
    const c = promptBlockHashes({ keys: [8, 7], lens: [512, 512] }, 1024, 64);
    expect(c[8]).not.toBe(a[0]);
    expect(new Set(a).size).toBe(16);
  });
});

describe('synthetic workloads', () => {
  const base = { isl: 1000, osl: 200, randomRangeRatio: 1, seed: 3, sharedPrefixRatio: 0, numPrefixGroups: 0, turnsPerSession: 1, interTurnDelayMs: 0, numRequests: 50 };

  it('open loop at 1000/rate ms intervals; fixed lengths at random_range_ratio 1', () => {
    const p = syntheticPlan(base, { kind: 'rate', requestRate: 4 });
    expect(p.sessions.slice(0, 3).map((s) => s.startMs)).toEqual([0, 250, 500]);
    expect(p.sessions.every((s) => s.turns[0].isl === 1000 && s.turns[0].osl === 200)).toBe(true);
  });

  it('random_range_ratio draws uniformly in [floor(r·len), len], seeded, ISL vector before OSL', () => {
    const p = syntheticPlan({ ...base, randomRangeRatio: 0.5, numRequests: 400 }, { kind: 'concurrency', concurrency: 8 });
    const isl = p.sessions.map((s) => s.turns[0].isl);
    const osl = p.sessions.map((s) => s.turns[0].osl);
    expect(Math.min(...isl)).toBeGreaterThanOrEqual(500);
    expect(Math.max(...isl)).toBeLessThanOrEqual(1000);
    expect(Math.min(...osl)).toBeGreaterThanOrEqual(100);
    expect(new Set(isl).size).toBeGreaterThan(100);
    const again = syntheticPlan({ ...base, randomRangeRatio: 0.5, numRequests: 400 }, { kind: 'concurrency', concurrency: 8 });
    expect(again.sessions.map((s) => s.turns[0].isl)).toEqual(isl);
    // The ISLs do not depend on how many OSLs follow... but the n-th ISL depends only on the seed.
    const fewer = syntheticPlan({ ...base, randomRangeRatio: 0.5, numRequests: 10 }, { kind: 'concurrency', concurrency: 8 });
    expect(fewer.sessions.map((s) => s.turns[0].isl)).toEqual(isl.slice(0, 10));
  });

  it('shared prefixes: requests of a group share floor(ratio·isl) leading tokens', () => {
    const p = syntheticPlan({ ...base, sharedPrefixRatio: 0.5, numPrefixGroups: 2, numRequests: 20 }, { kind: 'concurrency', concurrency: 4 });
    const hashes = p.sessions.map((s) => promptBlockHashes(s.turns[0].prompt, s.turns[0].isl, 64));
    const firstBlocks = new Set(hashes.map((h) => h[0]));
    expect(firstBlocks.size).toBe(2);
    const same = hashes.filter((h) => h[0] === hashes[0][0]);
    expect(same.length).toBeGreaterThan(1);
    expect(Array.from(same[1].slice(0, 7))).toEqual(Array.from(same[0].slice(0, 7))); // 500 tokens = 7 full blocks
    expect(same[1][8]).not.toBe(same[0][8]);
  });

  it('multi-turn sessions carry the conversation as the next prompt prefix', () => {
    const p = syntheticPlan({ ...base, turnsPerSession: 3, interTurnDelayMs: 250, numRequests: 6 }, { kind: 'concurrency', concurrency: 2 });
    expect(p.sessions).toHaveLength(2);
    const t = p.sessions[0].turns;
    expect(t.map((x) => x.isl)).toEqual([1000, 2200, 3400]);
    expect(t.map((x) => x.delayMs)).toEqual([0, 250, 250]);
    const h0 = promptBlockHashes(t[0].prompt, t[0].isl, 64);
    const h1 = promptBlockHashes(t[1].prompt, t[1].isl, 64);
    expect(Array.from(h1.slice(0, h0.length))).toEqual(Array.from(h0));
  });

  it('kv_load_ratio concurrency follows the §2 formula', () => {
    // usable = floor(100_000/64)·64 = 99_968; ×dp 2 ×replicas 3 = 599_808; avg = 1000 + 100 = 1100 → 545; ×0.5 → 272.
    expect(kvLoadConcurrency({ ratio: 0.5, perRankTokens: 100_000, blockSize: 64, attentionDp: 2, replicas: 3, isl: 1000, osl: 200 })).toBe(272);
    expect(kvLoadConcurrency({ ratio: 0.0001, perRankTokens: 100_000, blockSize: 64, attentionDp: 1, replicas: 1, isl: 1000, osl: 200 })).toBe(1);
    expect(kvLoadConcurrency({ ratio: 1, perRankTokens: 10, blockSize: 64, attentionDp: 1, replicas: 1, isl: 1, osl: 1 })).toBe(0);
    expect(syntheticRequestCount(10, 256)).toBe(2560);
    expect(syntheticRequestCount(0.001, 3)).toBe(1);
  });

  it('buildWorkloadPlan dispatches the config workload shapes', () => {
    const rate = buildWorkloadPlan(WorkloadSchema.parse({ isl: 100, osl: 10, request_rate: 5, num_request_ratio: 2 }), { concurrency: null });
    expect(rate.numRequests).toBe(10);
    expect(rate.concurrency).toBeNull();
    const kv = buildWorkloadPlan(WorkloadSchema.parse({ isl: 100, osl: 10, kv_load_ratio: 0.5, num_request_ratio: 3 }), { concurrency: 7 });
    expect(kv.concurrency).toBe(7);
    expect(kv.numRequests).toBe(21);
    expect(() => buildWorkloadPlan(WorkloadSchema.parse({ isl: 100, osl: 10, kv_load_ratio: 0.5, num_request_ratio: 3 }), { concurrency: null })).toThrow(/derived concurrency/);
  });
});
