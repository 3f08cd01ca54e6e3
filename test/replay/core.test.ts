import { describe, expect, it } from 'vitest';
import { EventKind, EventQueue } from '../../src/replay/event-queue.js';
import { KvCache } from '../../src/replay/engine/kv-cache.js';
import { BlockInterner } from '../../src/replay/block-interner.js';
import { PrefixIndex } from '../../src/replay/router/prefix-index.js';
import { percentileSorted, percentilesInPlace } from '../../src/replay/stats.js';
import { Prng } from '../../src/replay/prng.js';

describe('event queue', () => {
  it('orders by time, then the §5 kind order, then insertion', () => {
    const q = new EventQueue();
    q.push(5, EventKind.Kick, 1);
    q.push(5, EventKind.Arrival, 2);
    q.push(5, EventKind.PassEnd, 3);
    q.push(1, EventKind.Scaling, 4);
    q.push(5, EventKind.Arrival, 5);
    q.push(5, EventKind.TransferDone, 6);
    q.push(5, EventKind.WorkerReady, 7);
    const got: number[] = [];
    while (q.pop()) got.push(q.topData);
    expect(got).toEqual([4, 3, 7, 6, 2, 5, 1]);
    expect(q.popped).toBe(7);
  });

  it('stays a correct heap over many random pushes and pops', () => {
    const q = new EventQueue();
    const prng = new Prng(9);
    const ref: [number, number][] = [];
    let seq = 0;
    for (let i = 0; i < 5000; i++) {
      const at = prng.int(0, 300);
      q.push(at, EventKind.Arrival, seq);
      ref.push([at, seq++]);
    }
    ref.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const out: number[] = [];
    while (q.pop()) out.push(q.topData);
    expect(out).toEqual(ref.map((r) => r[1]));
  });
});

describe('KV cache', () => {
  it('reuses cached blocks, evicts unreferenced ones LRU (tail of a prompt first)', () => {
    const c = new KvCache(4, true);
    const a = Int32Array.from([1, 2, 3]);
    expect(c.allocate(3)).toBe(true);
    for (const h of a) expect(c.promote(h)).toBe(true);
    expect(c.available()).toBe(1);
    c.free([1, 2, 3], 0);
    expect(c.available()).toBe(4);
    expect(c.matchPrefix(a, 3)).toBe(3);
    // Needing 2 blocks evicts one: the prompt tail (3) goes first.
    expect(c.allocate(2)).toBe(true);
    expect(c.matchPrefix(a, 3)).toBe(2);
    expect(c.has(3)).toBe(false);
    expect(c.has(1) && c.has(2)).toBe(true);
    const refs: number[] = [];
    c.acquire(a, 2, refs);
    expect(c.allocate(1)).toBe(false); // 2 private + 2 referenced = full
    expect(c.activeBlocks()).toBe(4);
  });

  it('without prefix caching nothing is shared', () => {
    const c = new KvCache(4, false);
    expect(c.allocate(1)).toBe(true);
    expect(c.promote(7)).toBe(false);
    expect(c.matchPrefix(Int32Array.from([7]), 1)).toBe(0);
  });
});

describe('prefix index and interner', () => {
  it('reports per-slot leading overlap, across more than 32 slots', () => {
    const idx = new PrefixIndex();
    const h = Int32Array.from([10, 11, 12, 13]);
    for (const x of [10, 11, 12]) idx.add(x, 3);
    idx.add(10, 40);
    idx.add(11, 40); // slot 40 has 10, 11
    idx.add(12, 5); // no 10: overlap 0
    idx.add(10, 7);
    idx.add(11, 7);
    idx.add(12, 7);
    idx.add(13, 7);
    idx.remove(12, 7);
    const out = new Int32Array(64);
    idx.overlaps(h, 4, out);
    expect([out[3], out[40], out[5], out[7], out[0]]).toEqual([3, 2, 0, 2, 0]);
  });

  it('interns hashes to dense ids in first-seen order', () => {
    const b = new BlockInterner();
    const ids = [2 ** 52 + 1, 5, 2 ** 52 + 1, 2 ** 40 + 3].map((h) => b.id(h));
    expect(ids).toEqual([1, 2, 1, 3]);
    for (let i = 0; i < 100_000; i++) b.id(i * 7919 + 0.5 * (i % 2) + 1e9);
    expect(b.id(5)).toBe(2);
    expect(b.size).toBe(100_003);
  });
});

describe('percentiles', () => {
  it('quickselect agrees with sort + linear interpolation', () => {
    const prng = new Prng(4);
    const a = Float64Array.from({ length: 10_001 }, () => Math.floor(prng.next() * 50));
    const sorted = a.slice().sort();
    const got = percentilesInPlace(a.slice(), [50, 90, 99, 0, 100]);
    expect(got).toEqual([50, 90, 99, 0, 100].map((p) => percentileSorted(sorted, p)));
    expect(percentileSorted(Float64Array.from([1, 2, 3, 4]), 50)).toBe(2.5);
  });
});
