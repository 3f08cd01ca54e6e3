import { describe, expect, it } from 'vitest';
import { Router, DEFAULT_ROUTER, type RouteTarget, type RouterConfig } from '../../src/replay/router/router.js';
import { RankScheduler } from '../../src/replay/engine/rank-scheduler.js';
import { SimRequest } from '../../src/replay/engine/sim-request.js';
import { BlockInterner } from '../../src/replay/block-interner.js';
import { Prng } from '../../src/replay/prng.js';
import type { TokenSink } from '../../src/replay/engine/token-sink.js';
import { engine } from './fixture.js';

const sink: TokenSink = { tokens() {}, finished() {}, prefillDone() {}, rejected() {} };
const interner = new BlockInterner();

function targets(n: number): RouteTarget[] {
  return Array.from({ length: n }, (_, slot) => ({ slot, rank: new RankScheduler(engine('agg'), sink, null) }));
}

function request(id: number, keys = [1, 2, 3, 4]): SimRequest {
  return new SimRequest(id, id, 0, 512 * keys.length, 10, { keys, lens: keys.map(() => 512) }, 0, interner);
}

function router(cfg: Partial<RouterConfig>, seed = 1): Router {
  return new Router({ ...DEFAULT_ROUTER, mode: 'kv_router', ...cfg }, 64, true, new Prng(seed));
}

describe('KV router', () => {
  it('round robin cycles over the targets', () => {
    const t = targets(3);
    const r = new Router({ ...DEFAULT_ROUTER, mode: 'round_robin' }, 64, true, new Prng(1));
    expect([0, 1, 2, 3, 4].map((i) => r.pick(request(i), t, 3).slot)).toEqual([0, 1, 2, 0, 1]);
  });

  it('temperature 0: argmin of prefill_load_scale × (prefill − credit × overlap) + decode blocks; ties to the lowest slot', () => {
    const t = targets(4);
    const r = router({ overlapScoreCredit: 1, prefillLoadScale: 1 });
    expect(r.pick(request(1), t, 4).slot).toBe(0);
    t[0].rank.routedBlocks = 10;
    expect(r.pick(request(2), t, 4).slot).toBe(1);
    // Slot 3 caches the whole prefix (31 of 32 blocks count: the last token is always computed).
    const hashes = request(3).hashes(64);
    for (let j = 0; j < 31; j++) r.device.add(hashes[j], 3);
    t[3].rank.routedBlocks = 20;
    expect(r.pick(request(3), t, 4).slot).toBe(3);
    // With no credit for overlap, the load wins again.
    expect(router({ overlapScoreCredit: 0 }).pick(request(3), t, 4).slot).toBe(1);
    // Pending prefill work counts through prefill_load_scale.
    t[1].rank.pendingPrefillTokens = 64 * 100;
    t[2].rank.routedBlocks = 1;
    expect(router({ overlapScoreCredit: 0, prefillLoadScale: 1 }).pick(request(4), t, 4).slot).toBe(2);
  });

  it('temperature > 0: softmax over normalized costs, uniform when all equal, seeded', () => {
    const t = targets(4);
    const counts = [0, 0, 0, 0];
    const r = router({ temperature: 1 }, 5);
    for (let i = 0; i < 4000; i++) counts[r.pick(request(i), t, 4).slot]++;
    for (const c of counts) expect(Math.abs(c - 1000)).toBeLessThan(120);
    // Costs 0 (slot 0) … max (slot 3): normalized 0, 1/3, 2/3, 1 → p ∝ exp(−norm / 0.2).
    t[1].rank.routedBlocks = 10;
    t[2].rank.routedBlocks = 20;
    t[3].rank.routedBlocks = 30;
    const cold = [0, 0, 0, 0];
    const rc = router({ temperature: 0.2 }, 6);
    for (let i = 0; i < 20000; i++) cold[rc.pick(request(i), t, 4).slot]++;
    const w = [0, 1 / 3, 2 / 3, 1].map((x) => Math.exp(-x / 0.2));
    const z = w.reduce((a, b) => a + b, 0);
    cold.forEach((c, i) => expect(Math.abs(c / 20000 - w[i] / z)).toBeLessThan(0.015));
    const again = router({ temperature: 0.2 }, 6);
    const seq1 = Array.from({ length: 50 }, (_, i) => again.pick(request(i), t, 4).slot);
    const again2 = router({ temperature: 0.2 }, 6);
    expect(Array.from({ length: 50 }, (_, i) => again2.pick(request(i), t, 4).slot)).toEqual(seq1);
  });
});
