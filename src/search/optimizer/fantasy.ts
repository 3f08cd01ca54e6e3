// Posterior variance over a fixed candidate set, conditioned on "fantasy" observations (pending
// trials and the points already picked in the batch) without refactorizing K. Fantasies take the
// posterior mean as their value, so the mean is unchanged and only the variance shrinks:
//   cov_j(x, y) = cov_{j−1}(x, y) − u_j(x) u_j(y),   u_j(x) = cov_{j−1}(x, f_j) / √(cov_{j−1}(f_j, f_j) + σn²)
// with cov_0(x, y) = k(x, y) − v_xᵀ v_y and v = L⁻¹k(X, ·). Each fantasy costs O(C·(n + j)).
import { featureMajor, type GpPosterior } from './gp.js';
import { matVec } from './cholesky.js';

interface Fantasy {
  scaled: Float64Array;
  v: Float64Array;
  /** u_i(f) for earlier fantasies i. */
  u: number[];
  c: number;
}

export class FantasyBelief {
  readonly mean: Float64Array;
  /** Current (fantasy-conditioned) latent variance per candidate. */
  readonly variance: Float64Array;
  private readonly v: Float64Array;
  /** The candidates' scaled inputs, feature-major (F×C): one fantasy's covariances in long loops. */
  private readonly scaledT: Float64Array;
  private readonly fantasies: Fantasy[] = [];
  /** u_j(candidate) per fantasy j, row per fantasy. */
  private readonly uRows: Float64Array[] = [];

  constructor(private readonly gp: GpPosterior, candidates: readonly Float64Array[]) {
    const b = gp.predictBatch(candidates);
    this.mean = b.mean;
    this.variance = b.variance;
    this.v = b.v;
    this.scaledT = featureMajor(b.scaled, gp.featureCount);
  }

  get size(): number {
    return this.mean.length;
  }

  /** Fantasize an observation at the raw input `x` (candidate or not). */
  addFantasy(x: Float64Array): void {
    const gp = this.gp;
    const n = gp.n;
    const scaled = gp.scale(x);
    const v = gp.whiten(scaled);
    const u: number[] = [];
    let selfVar = gp.signal;
    for (let j = 0; j < n; j++) selfVar -= v[j] * v[j];
    for (let i = 0; i < this.fantasies.length; i++) {
      const fi = this.fantasies[i];
      let cov = gp.kernelBetween(scaled, fi.scaled);
      for (let j = 0; j < n; j++) cov -= v[j] * fi.v[j];
      for (let k = 0; k < i; k++) cov -= u[k] * fi.u[k];
      u.push(cov / fi.c);
      selfVar -= u[i] * u[i];
    }
    const c = Math.sqrt(Math.max(selfVar, 0) + gp.noise);
    const size = this.size;
    // vᵀ_x v_f for every candidate x (V is C×n, row per candidate).
    const dot = matVec(this.v, size, n, v);
    const prior = gp.kernelsTo(scaled, this.scaledT, size, new Float64Array(size));
    const row = conditionOn(prior, dot, this.uRows, u, c, this.variance, 1e-12 * gp.signal);
    this.fantasies.push({ scaled, v, u, c });
    this.uRows.push(row);
  }
}

// The O(C·n) and O(C·j) loops live in small functions of their own: inside addFantasy V8 optimized
// them on-stack mid-call, and that code kept bailing out on the first statement after the loop.

/**
 * u(x) = (k(x, f) − v_xᵀv_f − Σ_k u_k(x) u_k(f)) / c for every candidate, and the variance update
 * var(x) −= u(x)² (floored); returns u.
 */
function conditionOn(
  prior: Float64Array,
  dot: Float64Array,
  uRows: readonly Float64Array[],
  u: readonly number[],
  c: number,
  variance: Float64Array,
  floor: number,
): Float64Array {
  const size = prior.length;
  const row = new Float64Array(size);
  for (let ci = 0; ci < size; ci++) {
    let cov = prior[ci] - dot[ci];
    for (let k = 0; k < u.length; k++) cov -= uRows[k][ci] * u[k];
    const uc = cov / c;
    row[ci] = uc;
    variance[ci] = Math.max(variance[ci] - uc * uc, floor);
  }
  return row;
}
