import { describe, expect, it } from 'vitest';
import { coordinateMoves, coordinateNeighbourhood } from '../../../src/search/optimizer/neighbourhood.js';
import { pointKey, SpaceCodec, type Dimension, type Point } from '../../../src/search/optimizer/space.js';

const SPACE: Dimension[] = [
  { name: 'backend', kind: 'categorical', values: ['vllm', 'sglang', 'trtllm'] },
  { name: 'tg', kind: 'discrete', values: [1, 2, 4], log_scale: true },
  { name: 'ratio', kind: 'continuous', values: [0.25, 1] },
  { name: 'mode', kind: 'categorical', values: ['ep', 'tp'] },
  { name: 'pinned', kind: 'discrete', values: [8] },
];
const BASE: Point = { backend: 'sglang', tg: 2, ratio: 0.7, mode: 'ep', pinned: 8 };
const changed = (a: Point, b: Point) => SPACE.filter((d) => a[d.name] !== b[d.name]).map((d) => d.name);

describe('coordinate neighbourhoods (exhaustive local candidates)', () => {
  const codec = new SpaceCodec(SPACE);

  it('moves each finite dimension to every other member and a continuous one to its bounds, centre and ±0.15', () => {
    const moves = coordinateMoves(codec, BASE);
    expect(moves[0].sort()).toEqual(['trtllm', 'vllm']);
    expect(moves[1].sort()).toEqual([1, 4]);
    // unit(0.7) = 0.6 → bounds 0.25 and 1, centre 0.625, steps to units 0.45 and 0.75.
    const ratio = (moves[2] as number[]).sort((a, b) => a - b);
    expect(ratio).toHaveLength(5);
    [0.25, 0.5875, 0.625, 0.8125, 1].forEach((v, i) => expect(ratio[i]).toBeCloseTo(v, 9));
    expect(moves[3]).toEqual(['tp']);
    expect(moves[4]).toEqual([]); // a one-member dimension never moves
  });

  it('lists every single change, then every pair of changes, each exactly once and inside the space', () => {
    const all = coordinateNeighbourhood(codec, BASE, 2, Infinity);
    const singles = 2 + 2 + 5 + 1;
    const pairs = 2 * 2 + 2 * 5 + 2 * 1 + 2 * 5 + 2 * 1 + 5 * 1;
    expect(all).toHaveLength(singles + pairs);
    expect(new Set(all.map((p) => pointKey(SPACE, p))).size).toBe(all.length);
    all.forEach((p, i) => {
      expect(changed(BASE, p)).toHaveLength(i < singles ? 1 : 2);
      expect(() => codec.checkPoint(p)).not.toThrow();
    });
    expect(coordinateNeighbourhood(codec, BASE, 1, Infinity)).toEqual(all.slice(0, singles));
  });

  it('honours the limit and is a pure function of the point', () => {
    expect(coordinateNeighbourhood(codec, BASE, 2, 7)).toEqual(coordinateNeighbourhood(codec, BASE, 2, Infinity).slice(0, 7));
    // From a bound, the centre is one move away (a jump a ±0.15 step could not make).
    const atBound = coordinateMoves(codec, { ...BASE, ratio: 0.25 })[2] as number[];
    expect(atBound.some((v) => Math.abs(v - 0.625) < 1e-12)).toBe(true);
    expect(atBound.some((v) => v === 0.25)).toBe(false);
  });
});
