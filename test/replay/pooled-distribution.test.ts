// The pooled ITL distribution is exact: the same percentiles as sorting every sample, and means
// bit-identical to summing the full array in arrival order, through many compactions.
import { describe, expect, it } from 'vitest';
import { PooledDistribution } from '../../src/replay/pooled-distribution.js';
import { mean, percentileSorted } from '../../src/replay/stats.js';
import { mulberry32 } from '../support/mulberry32.js';

const PS = [0, 1, 50, 90, 99, 99.9, 100];

function check(samples: { v: number; times: number }[]) {
  const d = new PooledDistribution();
  const all: number[] = [];
  for (const { v, times } of samples) {
    d.add(v, times);
    for (let i = 0; i < times; i++) all.push(v);
  }
  const flat = Float64Array.from(all);
  const sorted = flat.slice().sort();
  expect(d.count).toBe(flat.length);
  expect(d.mean()).toBe(mean(flat));
  expect(d.percentiles(PS)).toEqual(PS.map((p) => percentileSorted(sorted, p)));
  let inv = 0;
  let invN = 0;
  for (const g of flat) if (g > 0) (inv += 1000 / g), invN++;
  expect(d.invSum).toBe(inv);
  expect(d.invCount).toBe(invN);
  return d;
}

describe('PooledDistribution', () => {
  it('matches the full sort on heavy repeats (decode batches) and keeps few runs', () => {
    const rnd = mulberry32(7);
    const samples: { v: number; times: number }[] = [];
    for (let pass = 0; pass < 3000; pass++) {
      const gap = 10 + Math.floor(rnd() * 40) / 8; // a few hundred distinct pass times
      for (let r = 0; r < 64; r++) samples.push({ v: r === 0 ? gap * 3 : gap, times: 1 + (r % 3 === 0 ? 1 : 0) });
    }
    const d = check(samples);
    expect(d.storedRuns()).toBeLessThan(1000);
  });

  it('matches the full sort on all-distinct values, zeros included, past many compactions', () => {
    const rnd = mulberry32(11);
    const samples = Array.from({ length: 50_000 }, (_, i) => ({ v: i % 97 === 0 ? 0 : rnd() * 100, times: 1 + (i % 5) }));
    check(samples);
  });

  it('is empty-safe and exact on one value', () => {
    expect(new PooledDistribution().percentiles([50])).toEqual([NaN]);
    expect(new PooledDistribution().mean()).toBeNaN();
    check([{ v: 3.5, times: 4 }]);
  });
});
