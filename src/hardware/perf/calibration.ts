// Fitting utilisation curves from perf-DB rows (pure: samples in, grids and error stats out).
import { evalGrid, fitGrid, type Grid, type GridAxis } from './grid.js';
import type { Sample } from './families.js';
import type { ErrorStats } from './coefficients.js';

/** FNV-1a: deterministic hold-out selection that depends only on the sweep key. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** Predicted latency (s) of a sample under a fitted log2-utilisation grid; utilisation capped at 1. */
export function predictLatency(g: Grid, s: Pick<Sample, 'x' | 'sol'>): number {
  const lu = evalGrid(g, s.x);
  return s.sol / 2 ** Math.min(0, lu);
}

function absRelErrors(g: Grid, samples: readonly Sample[]): number[] {
  return samples.map((s) => Math.abs(predictLatency(g, s) - s.latency) / s.latency).sort((a, b) => a - b);
}

const logUtil = (s: Sample): number => Math.log2(s.sol / s.latency);

export interface FittedCurve {
  grid: Grid;
  stats: ErrorStats;
  /** Fastest measured call (s): the collector's per-call floor (see `launchCredit`). */
  floorS: number;
}

/**
 * Fits one group's curve. Held-out sweeps (hash % 5 == 0) are fitted-out first to measure
 * generalisation to unseen shapes; the stored curve is then fitted on every row.
 */
export function fitCurve(axes: GridAxis[], samples: readonly Sample[]): FittedCurve {
  const usable = samples.filter((s) => s.latency > 0 && s.sol > 0 && Number.isFinite(s.sol));
  const sweeps = new Set(usable.map((s) => s.sweep));
  const holdout = (s: Sample, i: number): boolean => (sweeps.size >= 5 ? fnv1a(s.sweep) % 5 === 0 : i % 5 === 2);
  const train: Sample[] = [];
  const test: Sample[] = [];
  usable.forEach((s, i) => (holdout(s, i) ? test : train).push(s));
  let heldoutMedian: number | null = null;
  let heldoutP90: number | null = null;
  if (test.length > 0 && train.length > 0) {
    const g = fitGrid(axes, train.map((s) => s.x), train.map(logUtil));
    const e = absRelErrors(g, test);
    heldoutMedian = quantile(e, 0.5);
    heldoutP90 = quantile(e, 0.9);
  }
  const grid = fitGrid(axes, usable.map((s) => s.x), usable.map(logUtil));
  const e = absRelErrors(grid, usable);
  const floorS = usable.reduce((m, s) => Math.min(m, s.latency), Infinity);
  return {
    grid,
    floorS: Number.isFinite(floorS) ? Number(floorS.toPrecision(4)) : 0,
    stats: {
      rows: usable.length,
      median: round4(quantile(e, 0.5)),
      p90: round4(quantile(e, 0.9)),
      heldoutRows: test.length,
      heldoutMedian: heldoutMedian === null ? null : round4(heldoutMedian),
      heldoutP90: heldoutP90 === null ? null : round4(heldoutP90),
    },
  };
}

function round4(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
