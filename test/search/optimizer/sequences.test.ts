import { describe, expect, it } from 'vitest';
import { ScrambledHalton } from '../../../src/search/optimizer/halton.js';
import { Prng } from '../../../src/search/optimizer/prng.js';
import { selectObservations } from '../../../src/search/optimizer/subset.js';

describe('Prng', () => {
  it('is seeded, resumable from its serialized state, and uniform-ish', () => {
    const a = Prng.fromSeed(42);
    const b = Prng.fromSeed(42);
    expect(Array.from({ length: 5 }, () => a.nextUint32())).toEqual(Array.from({ length: 5 }, () => b.nextUint32()));
    const resumed = Prng.fromState(JSON.parse(JSON.stringify(a.state())));
    expect(Array.from({ length: 5 }, () => resumed.next())).toEqual(Array.from({ length: 5 }, () => a.next()));
    expect(Prng.fromSeed(1).next()).not.toBe(Prng.fromSeed(2).next());
    const r = Prng.fromSeed(9);
    const bins = new Array(10).fill(0);
    for (let i = 0; i < 10_000; i++) bins[Math.floor(r.next() * 10)]++;
    for (const c of bins) expect(Math.abs(c - 1000)).toBeLessThan(150);
  });
});

describe('ScrambledHalton', () => {
  it('stratifies each coordinate: the first b^k points hit every 1/b^k cell once', () => {
    const h = new ScrambledHalton(3, 123);
    const pts = Array.from({ length: 125 }, (_, i) => h.point(i));
    const cells = (dim: number, count: number) => new Set(pts.slice(0, count).map((p) => Math.floor(p[dim] * count))).size;
    expect(cells(0, 64)).toBe(64); // base 2
    expect(cells(1, 81)).toBe(81); // base 3
    expect(cells(2, 125)).toBe(125); // base 5
    for (const p of pts) for (const v of p) expect(v >= 0 && v < 1).toBe(true);
  });

  it('depends on the seed only through its scrambling', () => {
    expect(Array.from(new ScrambledHalton(2, 1).point(7))).toEqual(Array.from(new ScrambledHalton(2, 1).point(7)));
    expect(Array.from(new ScrambledHalton(2, 1).point(7))).not.toEqual(Array.from(new ScrambledHalton(2, 2).point(7)));
  });
});

describe('selectObservations', () => {
  it('keeps everything under the cap', () => {
    expect(selectObservations(5, 10)).toEqual([0, 1, 2, 3, 4]);
  });

  it('keeps the best, the most recent and a spread of the rest, deterministically', () => {
    const scores = Array.from({ length: 1000 }, (_, i) => (i === 17 ? 100 : Math.sin(i)));
    const idx = selectObservations(1000, 100, scores);
    expect(idx).toHaveLength(100);
    expect(idx).toContain(17); // the best
    expect(idx).toContain(999); // the most recent
    expect(idx.some((i) => i > 200 && i < 700)).toBe(true); // the spread
    expect(new Set(idx).size).toBe(100);
    expect(selectObservations(1000, 100, scores)).toEqual(idx);
  });
});
