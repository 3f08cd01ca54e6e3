// Posterior variance over a fixed candidate set, conditioned on "fantasy" observations (pending
// trials and the points already picked in the batch) without refactorizing K. Fantasies take the
// posterior mean as their value, so the mean is unchanged and only the variance shrinks:
//   cov_j(x, y) = cov_{j−1}(x, y) − u_j(x) u_j(y),   u_j(x) = cov_{j−1}(x, f_j) / √(cov_{j−1}(f_j, f_j) + σn²)
// with cov_0(x, y) = k(x, y) − v_xᵀ v_y and v = L⁻¹k(X, ·). Each fantasy costs O(C·(n + j)).
import type { GpPosterior } from './gp.js';

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
  private readonly scaled: Float64Array[];
  private readonly fantasies: Fantasy[] = [];
  /** u_j(candidate) per fantasy j, row per fantasy. */
  private readonly uRows: Float64Array[] = [];

  constructor(private readonly gp: GpPosterior, candidates: readonly Float64Array[]) {
    const b = gp.predictBatch(candidates);
    this.mean = b.mean;
    this.variance = b.variance;
    this.v = b.v;
    this.scaled = b.scaled;
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
    // vᵀ_x v_f for every candidate (V is C×n, row per candidate).
    const dot = new Float64Array(size);
    for (let ci = 0; ci < size; ci++) {
      const off = ci * n;
      let acc = 0;
      for (let j = 0; j < n; j++) acc += this.v[off + j] * v[j];
      dot[ci] = acc;
    }
    const row = new Float64Array(size);
    for (let ci = 0; ci < size; ci++) {
      let cov = gp.kernelBetween(this.scaled[ci], scaled) - dot[ci];
      for (let k = 0; k < u.length; k++) cov -= this.uRows[k][ci] * u[k];
      const uc = cov / c;
      row[ci] = uc;
      this.variance[ci] = Math.max(this.variance[ci] - uc * uc, 1e-12 * gp.signal);
    }
    this.fantasies.push({ scaled, v, u, c });
    this.uRows.push(row);
  }
}
