import { describe, expect, it } from 'vitest';
import { evalGrid, fitGrid, gridFromJson, gridToJson, type GridAxis } from '../../src/hardware/perf/grid.js';
import { fitCurve, fnv1a, predictLatency, quantile } from '../../src/hardware/perf/calibration.js';
import type { Sample } from '../../src/hardware/perf/families.js';

const axes: GridAxis[] = [
  { lo: 0, step: 1, n: 9 },
  { lo: 0, step: 2, n: 5 },
];

describe('grid fitting', () => {
  it('recovers a smooth function from scattered points and holds the edge value beyond the box', () => {
    const f = (x: number, y: number): number => -2 + 0.2 * x - 0.05 * y + 0.01 * x * y;
    const xs: number[][] = [];
    const ys: number[] = [];
    for (let i = 0; i < 400; i++) {
      const x = (fnv1a(`x${i}`) % 800) / 100;
      const y = (fnv1a(`y${i}`) % 800) / 100;
      xs.push([x, y]);
      ys.push(f(x, y));
    }
    const g = fitGrid(axes, xs, ys, { smooth: 0.001, iterations: 400 });
    for (const [x, y] of [[1.5, 2.5], [4, 4], [7.2, 0.5]]) expect(evalGrid(g, [x, y])).toBeCloseTo(f(x, y), 1);
    // Beyond the last knot the value is held (util-hold), not extrapolated.
    expect(evalGrid(g, [100, 4])).toBeCloseTo(evalGrid(g, [8, 4]), 10);
    expect(evalGrid(g, [-5, 4])).toBeCloseTo(evalGrid(g, [0, 4]), 10);
  });

  it('serialises compactly and round-trips within the quantisation step', () => {
    const xs = [[1, 1], [2, 3], [5, 7]];
    const g = fitGrid(axes, xs, [-1, -2.5, -0.25]);
    const back = gridFromJson(JSON.parse(JSON.stringify(gridToJson(g))));
    for (let i = 0; i < g.values.length; i++) expect(Math.abs(back.values[i] - g.values[i])).toBeLessThanOrEqual(0.5 / 250 + 1e-12);
  });

  it('fitCurve reports held-out and in-sample errors and never predicts faster than SOL', () => {
    const samples: Sample[] = [];
    for (let s = 0; s < 10; s++) {
      for (let m = 0; m < 12; m++) {
        const sol = 1e-6 * 2 ** m * (1 + s / 10);
        const util = 0.9 * (1 - Math.exp(-(2 ** m) / 64)); // saturating utilisation
        samples.push({ group: 'g', x: [m, s], sol, latency: sol / util, sweep: `s${s}` });
      }
    }
    const fit = fitCurve([{ lo: 0, step: 1, n: 12 }, { lo: 0, step: 3, n: 4 }], samples);
    expect(fit.stats.rows).toBe(120);
    expect(fit.stats.median).toBeLessThan(0.05);
    expect(fit.stats.heldoutMedian).not.toBeNull();
    expect(fit.stats.heldoutMedian!).toBeLessThan(0.1);
    for (const s of samples) expect(predictLatency(fit.grid, s)).toBeGreaterThanOrEqual(s.sol);
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
  });
});
