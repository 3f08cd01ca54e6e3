// Feasibility model: infeasible trials are never told to the objective GP as a score. Instead a
// separate GP is regressed on ±1 feasibility labels (least-squares GP classification, Rasmussen &
// Williams §6.5), centred on the observed feasible rate, and squashed through a probit:
//   p(x) = Φ(κ · (m₀ + μ(x))),  κ = 2  (label +1 ⇒ p ≈ 0.98, −1 ⇒ p ≈ 0.02).
// The acquisition is multiplied by p, so neighbourhoods of infeasible trials are avoided in
// proportion to the evidence. Only the mean is used (O(n·F) per candidate).
import { GpPosterior, defaultHyper, fitHyper, type GpHyper } from './gp.js';
import { selectObservations } from './subset.js';

const KAPPA = 2;

/** Standard normal CDF (Abramowitz–Stegun 7.1.26 erf, |error| < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

export interface FeasibilityModel {
  hyper: GpHyper;
  probability(candidates: readonly Float64Array[]): Float64Array;
}

export function fitFeasibility(
  x: readonly Float64Array[],
  feasible: readonly boolean[],
  featureDim: Int32Array,
  dims: number,
  warm: GpHyper | null,
  limits: { cap: number; fitCap: number; coldIterations: number; warmIterations: number },
): FeasibilityModel {
  // Keep infeasible trials preferentially (they carry the information) when subsampling.
  const flag = feasible.map((f) => (f ? 0 : 1));
  const idx = selectObservations(x.length, limits.cap, flag);
  const labels = idx.map((i) => (feasible[i] ? 1 : -1));
  const m0 = labels.reduce((a, b) => a + b, 0) / labels.length;
  const xs = idx.map((i) => x[i]);
  const ys = labels.map((l) => l - m0);
  const fitIdx = selectObservations(xs.length, limits.fitCap, idx.map((i) => flag[i]));
  // Zero warm iterations: keep the previous hyperparameters (no refit this ask).
  const hyper = warm && limits.warmIterations === 0 ? warm.slice() : fitHyper(
    fitIdx.map((i) => xs[i]),
    fitIdx.map((i) => ys[i]),
    featureDim,
    dims,
    warm ?? defaultHyper(dims),
    warm ? limits.warmIterations : limits.coldIterations,
  );
  const gp = new GpPosterior(xs, ys, featureDim, hyper);
  return {
    hyper,
    probability(candidates) {
      const mu = gp.meanBatch(candidates);
      const p = new Float64Array(mu.length);
      for (let i = 0; i < mu.length; i++) p[i] = normalCdf(KAPPA * (m0 + mu[i]));
      return p;
    },
  };
}
