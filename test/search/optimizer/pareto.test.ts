import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { dominates, hypervolume, hypervolume2d, paretoFront, paretoFrontBy, paretoFrontIndices } from '../../../src/search/pareto.js';

describe('dominates', () => {
  it('needs ≥ on all and > on one, after sign normalization', () => {
    expect(dominates([2, 1], [1, 1], ['max', 'max'])).toBe(true);
    expect(dominates([1, 1], [1, 1], ['max', 'max'])).toBe(false);
    expect(dominates([2, 0], [1, 1], ['max', 'max'])).toBe(false);
    expect(dominates([2, 1], [1, 2], ['max', 'min'])).toBe(true);
    expect(dominates([2, 2], [1, 1], ['max', 'min'])).toBe(false);
  });
});

describe('paretoFront', () => {
  it('keeps exactly the non-dominated points, sorted ascending by the last objective', () => {
    const pts = [
      [1, 5],
      [3, 3],
      [2, 2], // dominated by [3,3]
      [5, 1],
      [4, 0.5], // dominated by [5,1]
      [0, 6],
    ];
    expect(paretoFront(pts, ['max', 'max'])).toEqual([
      [5, 1],
      [3, 3],
      [1, 5],
      [0, 6],
    ]);
  });

  it('keeps duplicates (identical points do not dominate each other) and breaks ties by input order', () => {
    const pts = [
      [2, 2],
      [1, 3],
      [2, 2],
      [3, 1],
    ];
    expect(paretoFrontIndices(pts, ['max', 'max'])).toEqual([3, 0, 2, 1]);
  });

  it('treats ties on one objective correctly: the better one on the other dominates', () => {
    const pts = [
      [3, 1],
      [3, 2],
      [1, 2],
    ];
    expect(paretoFront(pts, ['max', 'max'])).toEqual([[3, 2]]);
  });

  it('handles mixed directions (throughput max, latency min) and sorts by the raw last value', () => {
    const pts = [
      [100, 50], // tput 100 @ 50 ms
      [80, 20],
      [90, 60], // dominated by [100,50]
      [80, 25], // dominated by [80,20]
      [40, 10],
    ];
    expect(paretoFront(pts, ['max', 'min'])).toEqual([
      [40, 10],
      [80, 20],
      [100, 50],
    ]);
  });

  it('works on items through an accessor, for three objectives', () => {
    const items = [
      { id: 'a', o: [1, 1, 1] },
      { id: 'b', o: [2, 2, 2] },
      { id: 'c', o: [3, 0, 1] },
      { id: 'd', o: [1, 1, 3] },
    ];
    expect(paretoFrontBy(items, ['max', 'max', 'max'], (i) => i.o).map((i) => i.id)).toEqual(['c', 'b', 'd']);
  });

  it('rejects NaN and wrong arity with an InputError', () => {
    expect(() => paretoFront([[1, Number.NaN]], ['max', 'max'])).toThrow(InputError);
    expect(() => paretoFront([[1, 2, 3]], ['max', 'max'])).toThrow(InputError);
  });
});

describe('hypervolume', () => {
  it('2-D: staircase area over the reference, dominated and out-of-reference points add nothing', () => {
    const front = [
      [3, 1],
      [2, 2],
      [1, 3],
    ];
    expect(hypervolume2d(front, [0, 0])).toBeCloseTo(6, 12);
    expect(hypervolume2d([...front, [1, 1], [2, 2], [-1, 10]], [0, 0])).toBeCloseTo(6, 12);
    expect(hypervolume2d([], [0, 0])).toBe(0);
  });

  it('2-D with a minimized objective uses the reference as the worst value', () => {
    // tput ≥ 0 (max), latency ≤ 10 (min): boxes [0,4]×[2,10] ∪ [0,2]×[1,10].
    expect(hypervolume2d([[4, 2], [2, 1]], [0, 10], ['max', 'min'])).toBeCloseTo(4 * 8 + 2 * 1, 12);
  });

  it('general hypervolume matches the 2-D sweep and exact 3-D unions', () => {
    const front = [
      [3, 1],
      [2, 2],
      [1, 3],
    ];
    expect(hypervolume(front, [0, 0])).toBeCloseTo(hypervolume2d(front, [0, 0]), 12);
    expect(hypervolume([[1, 1, 1]], [0, 0, 0])).toBeCloseTo(1, 12);
    // Two boxes [0,2]×[0,1]×[0,1] and [0,1]×[0,2]×[0,1] overlap in a unit cube: 2 + 2 − 1.
    expect(hypervolume([[2, 1, 1], [1, 2, 1]], [0, 0, 0])).toBeCloseTo(3, 12);
    // Plus [0,1]×[0,1]×[0,2]: inclusion–exclusion 2+2+2 −1−1−1 +1 = 4.
    expect(hypervolume([[2, 1, 1], [1, 2, 1], [1, 1, 2]], [0, 0, 0])).toBeCloseTo(4, 12);
  });

  it('4-D stays exact (slicing) and agrees with a Monte-Carlo-free grid count', () => {
    const pts = [
      [2, 1, 1, 1],
      [1, 2, 1, 1],
      [1, 1, 1, 2],
    ];
    // Unit-grid cells of [0,2]^4 dominated by some point.
    let cells = 0;
    for (let a = 0; a < 2; a++)
      for (let b = 0; b < 2; b++)
        for (let c = 0; c < 2; c++)
          for (let d = 0; d < 2; d++)
            if (pts.some((p) => p[0] > a && p[1] > b && p[2] > c && p[3] > d)) cells++;
    expect(hypervolume(pts, [0, 0, 0, 0])).toBeCloseTo(cells, 12);
  });
});
