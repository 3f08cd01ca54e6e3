// Backend overheads fitted against measured end-to-end TTFT/TPOT (e2e/silicon_dev.csv, agg rows).
// The kernel tables are isolated-kernel times; real engines add per-pass host work (scheduling,
// CPU dispatch — vLLM's is per layer) and gaps or overlap between kernels, and the benchmarks'
// request timing sets how many prefills interleave with decoding and queue ahead of a new request.
// Pass time = Σ max(SOL, kernelScale · kernel) + passMs + perLayerMs · layers (engine.ts; the fit
// treats the SOL floor as inactive, which it is for all but the fastest ops when kernelScale < 1);
// TTFT/TPOT combine passes with prefillInterleave and ttftQueue (steadyState.ts).
import { quantile } from './calibration.js';
import type { Overhead } from './coefficients.js';
import { combineSteadyState, type SteadyStateParts } from './steadyState.js';

/** Overheads that leave isolated-kernel times untouched (before the e2e fit, and for raw cases). */
export const KERNELS_ONLY_OVERHEAD: Overhead = Object.freeze({
  passMs: 0,
  perLayerMs: 0,
  kernelScale: 1,
  prefillInterleave: 1,
  ttftQueue: 0,
  ttftFixedMs: 0,
  source: 'kernels only (before the e2e fit)',
  rows: 0,
});

/** One e2e case: its steady-state parts from kernels only (no overheads), and the measurements. */
export interface RawCase {
  layers: number;
  parts: SteadyStateParts;
  tpotMs: number;
  ttftMs: number;
}

export interface FittedOverhead {
  kernelScale: number;
  passMs: number;
  perLayerMs: number;
  prefillInterleave: number;
  ttftQueue: number;
  ttftFixedMs: number;
  tpotMedianErr: number;
  ttftMedianErr: number;
}

function range(lo: number, hi: number, step: number): number[] {
  const out: number[] = [];
  for (let v = lo; v <= hi + 1e-9; v += step) out.push(Math.round(v * 1e4) / 1e4);
  return out;
}

/** Every pass of the parts gets kernelScale·kernels + c (c = per-pass + per-layer overhead). */
function withOverhead(p: SteadyStateParts, k: number, c: number): SteadyStateParts {
  return {
    ...p,
    decodeMs: k * p.decodeMs + c,
    mixedMs: k * p.mixedMs + c,
    prefillOneMs: k * p.prefillOneMs + p.chunks * c,
    prefillBatchMs: k * p.prefillBatchMs + c,
  };
}

/** TTFT / TPOT of a raw case under fitted overheads (the same arithmetic the fit optimises). */
export function predictCase(c: RawCase, o: Pick<FittedOverhead, 'kernelScale' | 'passMs' | 'perLayerMs' | 'prefillInterleave' | 'ttftQueue' | 'ttftFixedMs'>): { ttftMs: number; tpotMs: number } {
  return combineSteadyState(withOverhead(c.parts, o.kernelScale, o.passMs + o.perLayerMs * c.layers), o.prefillInterleave, o.ttftQueue, o.ttftFixedMs);
}

function medianAbsRel(errs: number[]): number {
  return quantile(errs.sort((a, b) => a - b), 0.5);
}

interface Params { k: number; p: number; l: number; f: number }

function tpotErr(cases: readonly RawCase[], q: Params): number {
  return medianAbsRel(
    cases.map((c) => {
      const t = combineSteadyState(withOverhead(c.parts, q.k, q.p + q.l * c.layers), q.f, 0, 0).tpotMs;
      return Math.abs(t - c.tpotMs) / c.tpotMs;
    }),
  );
}

/**
 * Coarse grid then a local refinement minimising the median |relative error| of TPOT over
 * (kernelScale, passMs, perLayerMs, prefillInterleave); then (ttftFixedMs, ttftQueue) for TTFT with those fixed.
 */
export function fitOverhead(cases: readonly RawCase[]): FittedOverhead {
  let best: Params = { k: 1, p: 0, l: 0, f: 1 };
  let bestErr = Infinity;
  const consider = (q: Params): void => {
    const e = tpotErr(cases, q);
    if (e < bestErr - 1e-12) { bestErr = e; best = q; }
  };
  for (const k of range(0.5, 2, 0.1)) for (const p of range(0, 6, 0.5)) for (const l of [0, 0.01, 0.02, 0.04]) for (const f of range(0, 1, 0.25)) consider({ k, p, l, f });
  // Local refinement: shrink steps around the incumbent.
  let step = { k: 0.05, p: 0.25, l: 0.005, f: 0.125 };
  for (let round = 0; round < 4; round++) {
    const c0 = best;
    for (const dk of [-1, 0, 1]) for (const dp of [-1, 0, 1]) for (const dl of [-1, 0, 1]) for (const df of [-1, 0, 1]) {
      const q = { k: c0.k + dk * step.k, p: c0.p + dp * step.p, l: c0.l + dl * step.l, f: c0.f + df * step.f };
      if (q.k <= 0 || q.p < 0 || q.l < 0 || q.f < 0 || q.f > 1) continue;
      consider(q);
    }
    step = { k: step.k / 2, p: step.p / 2, l: step.l / 2, f: step.f / 2 };
  }
  let ttftQueue = 0;
  let ttftFixedMs = 0;
  let ttftErr = Infinity;
  const scaled = cases.map((c) => withOverhead(c.parts, best.k, best.p + best.l * c.layers));
  for (const fixed of range(0, 300, 5)) {
    for (const w of range(0, 1, 0.02)) {
      const e = medianAbsRel(cases.map((c, i) => Math.abs(combineSteadyState(scaled[i], best.f, w, fixed).ttftMs - c.ttftMs) / c.ttftMs));
      if (e < ttftErr - 1e-12) { ttftErr = e; ttftQueue = w; ttftFixedMs = fixed; }
    }
  }
  const r = (x: number): number => Math.round(x * 1e4) / 1e4;
  return { kernelScale: r(best.k), passMs: r(best.p), perLayerMs: r(best.l), prefillInterleave: r(best.f), ttftQueue, ttftFixedMs, tpotMedianErr: bestErr, ttftMedianErr: ttftErr };
}
