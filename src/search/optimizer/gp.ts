// Matern-5/2 ARD Gaussian process on the encoded features (zero prior mean: callers standardize y).
//
// Hyperparameters θ = [log ℓ_1..log ℓ_D, log s², log σn²] (one length scale per *dimension*, tied
// across a categorical's one-hot columns). They maximize the log marginal likelihood plus weak
// log-normal priors (a MAP estimate: the priors keep tiny data sets from driving ℓ or σn to the
// bounds) by projected Adam on log-params with the analytic gradient ½ tr((ααᵀ − K⁻¹) ∂K/∂θ),
// warm-started from the previous fit. Deterministic: fixed iteration counts, no randomness.
import { cholesky, matVec, inverseFromCholesky, solveLower, solveLowerRows, solveUpper } from './cholesky.js';

const SQRT5 = Math.sqrt(5);
const LOG_2PI = Math.log(2 * Math.PI);

export type GpHyper = number[];

const PRIOR = {
  lengthscale: { mean: Math.log(0.5), sd: 1.2, lo: Math.log(0.01), hi: Math.log(30) },
  signal: { mean: 0, sd: 1.0, lo: Math.log(0.01), hi: Math.log(100) },
  noise: { mean: Math.log(1e-3), sd: 2.0, lo: Math.log(1e-6), hi: Math.log(1) },
};

export function defaultHyper(dims: number): GpHyper {
  return [...Array.from({ length: dims }, () => Math.log(0.5)), 0, Math.log(1e-2)];
}

function priorOf(i: number, dims: number) {
  return i < dims ? PRIOR.lengthscale : i === dims ? PRIOR.signal : PRIOR.noise;
}

/** Matern-5/2 correlation at scaled distance r. */
export function matern52(r: number): number {
  const sr = SQRT5 * r;
  return (1 + sr + (sr * sr) / 3) * Math.exp(-sr);
}

/** Per-feature 1/ℓ from per-dimension log length scales. */
function featureScales(hyper: GpHyper, featureDim: Int32Array): Float64Array {
  const w = new Float64Array(featureDim.length);
  for (let f = 0; f < w.length; f++) w[f] = Math.exp(-hyper[featureDim[f]]);
  return w;
}

export interface LogPosterior {
  value: number;
  gradient: number[];
}

/**
 * Per-dimension squared distances of all pairs (packed upper triangle, dimension-major); computed
 * once per fit so each likelihood evaluation is O(m²·D + m³).
 */
export class PairDistances {
  readonly pairs: number;
  readonly d2: Float64Array;
  constructor(readonly x: readonly Float64Array[], featureDim: Int32Array, readonly dims: number) {
    const m = x.length;
    this.pairs = (m * (m - 1)) / 2;
    const P = this.pairs;
    const d2 = new Float64Array(dims * P);
    this.d2 = d2;
    let p = 0;
    for (let i = 0; i < m; i++)
      for (let j = i + 1; j < m; j++, p++)
        for (let f = 0; f < featureDim.length; f++) {
          const diff = x[i][f] - x[j][f];
          if (diff !== 0) d2[featureDim[f] * P + p] += diff * diff;
        }
  }
}

/**
 * Log marginal likelihood + log prior and its gradient w.r.t. the log hyperparameters; null if K is not
 * PD. Without `withGradient` the gradient is left empty and K⁻¹ (a third of the work) is not formed.
 */
export function logPosterior(dist: PairDistances, y: ArrayLike<number>, hyper: GpHyper, withGradient = true): LogPosterior | null {
  const m = dist.x.length;
  const dims = dist.dims;
  const s2 = Math.exp(hyper[dims]);
  const n2 = Math.exp(hyper[dims + 1]);
  const invL2 = new Float64Array(dims);
  for (let d = 0; d < dims; d++) invL2[d] = Math.exp(-2 * hyper[d]);
  const P = dist.pairs;
  // Locals, not property reads, in the hot loops: V8 reloads a property after every typed-array store.
  const d2 = dist.d2;
  // r2_p = Σ_d d2_dp/ℓ_d², summed over d in order; four dimensions per pass over the pairs.
  const r2 = new Float64Array(P);
  let d = 0;
  for (; d + 4 <= dims; d += 4) {
    const w0 = invL2[d];
    const w1 = invL2[d + 1];
    const w2 = invL2[d + 2];
    const w3 = invL2[d + 3];
    const o0 = d * P;
    const o1 = o0 + P;
    const o2 = o1 + P;
    const o3 = o2 + P;
    for (let p = 0; p < P; p++) {
      let r = r2[p];
      r += d2[o0 + p] * w0;
      r += d2[o1 + p] * w1;
      r += d2[o2 + p] * w2;
      r += d2[o3 + p] * w3;
      r2[p] = r;
    }
  }
  for (; d < dims; d++) {
    const w = invL2[d];
    const off = d * P;
    for (let p = 0; p < P; p++) r2[p] += d2[off + p] * w;
  }
  const k = new Float64Array(m * m);
  const dkdr = new Float64Array(P); // s²·(5/3)(1+√5r)e^{−√5r}: ∂K/∂log ℓ_d = this · d2_d/ℓ_d²
  let p = 0;
  for (let i = 0; i < m; i++) {
    k[i * m + i] = s2 + n2 + 1e-9;
    for (let j = i + 1; j < m; j++, p++) {
      const r = Math.sqrt(r2[p]);
      const e = Math.exp(-SQRT5 * r);
      const v = s2 * (1 + SQRT5 * r + (5 / 3) * r2[p]) * e;
      k[i * m + j] = v;
      k[j * m + i] = v;
      dkdr[p] = s2 * (5 / 3) * (1 + SQRT5 * r) * e;
    }
  }
  const l = cholesky(k, m);
  if (!l) return null;
  const tmp = new Float64Array(m);
  const alpha = solveUpper(l, m, solveLower(l, m, y, tmp), new Float64Array(m));
  let value = -0.5 * m * LOG_2PI;
  for (let i = 0; i < m; i++) value -= 0.5 * y[i] * alpha[i] + Math.log(l[i * m + i]);
  if (!withGradient) {
    for (let i = 0; i < hyper.length; i++) {
      const pr = priorOf(i, dims);
      const z = (hyper[i] - pr.mean) / pr.sd;
      value -= 0.5 * z * z;
    }
    return { value, gradient: [] };
  }
  const inv = inverseFromCholesky(l, m);
  // W = ααᵀ − K⁻¹; gradient = ½ Σ_ij W_ij ∂K_ij (off-diagonal pairs counted twice).
  const grad = new Array<number>(dims + 2).fill(0);
  const wPair = new Float64Array(P);
  p = 0;
  let gSignal = 0;
  for (let i = 0; i < m; i++) {
    const wii = alpha[i] * alpha[i] - inv[i * m + i];
    gSignal += 0.5 * wii * s2;
    grad[dims + 1] += 0.5 * wii * n2;
    for (let j = i + 1; j < m; j++, p++) {
      const wij = alpha[i] * alpha[j] - inv[i * m + j];
      wPair[p] = wij;
      gSignal += wij * k[i * m + j];
    }
  }
  grad[dims] = gSignal;
  // ∂/∂log ℓ_d = Σ_q (W_q·dkdr_q)·d2_dq / ℓ_d²: the product W·dkdr is shared by every dimension, and
  // the dimensions' sums (each over q in order) run as one matrix–vector product.
  const wk = new Float64Array(P);
  for (let q = 0; q < P; q++) wk[q] = wPair[q] * dkdr[q];
  const g = matVec(d2, dims, P, wk);
  for (d = 0; d < dims; d++) grad[d] = g[d] * invL2[d];
  for (let i = 0; i < hyper.length; i++) {
    const pr = priorOf(i, dims);
    const z = (hyper[i] - pr.mean) / pr.sd;
    value -= 0.5 * z * z;
    grad[i] -= z / pr.sd;
  }
  return { value, gradient: grad };
}

/**
 * MAP hyperparameters by projected Adam from `init` (the previous fit, or `defaultHyper`).
 * Returns the best iterate seen, so a bad step never makes the fit worse than its warm start.
 */
export function fitHyper(
  x: readonly Float64Array[],
  y: ArrayLike<number>,
  featureDim: Int32Array,
  dims: number,
  init: GpHyper,
  iterations: number,
  learningRate = 0.1,
): GpHyper {
  if (x.length < 2) return init.slice();
  const dist = new PairDistances(x, featureDim, dims);
  const theta = init.slice();
  const mom = new Array<number>(theta.length).fill(0);
  const vel = new Array<number>(theta.length).fill(0);
  let best = theta.slice();
  let bestValue = -Infinity;
  const b1 = 0.9;
  const b2 = 0.999;
  for (let t = 1; t <= iterations + 1; t++) {
    // The last evaluation only decides whether the final step improved: no gradient needed.
    const lp = logPosterior(dist, y, theta, t <= iterations);
    if (!lp) break;
    if (lp.value > bestValue) {
      bestValue = lp.value;
      best = theta.slice();
    }
    if (t > iterations) break;
    for (let i = 0; i < theta.length; i++) {
      const g = lp.gradient[i];
      mom[i] = b1 * mom[i] + (1 - b1) * g;
      vel[i] = b2 * vel[i] + (1 - b2) * g * g;
      const mh = mom[i] / (1 - b1 ** t);
      const vh = vel[i] / (1 - b2 ** t);
      const pr = priorOf(i, dims);
      theta[i] = Math.min(pr.hi, Math.max(pr.lo, theta[i] + (learningRate * mh) / (Math.sqrt(vh) + 1e-8)));
    }
  }
  return best;
}

/**
 * out[o + i] = ‖a[ao..ao+F) − p_i‖² for points i < count stored feature-major (pointsT[f·stride + i]),
 * summed over the features in order: the same sum as a row-by-row loop, so the covariances built from
 * it are bit-identical, but with long inner loops over the points.
 */
function squaredDistancesInto(pointsT: Float64Array, stride: number, F: number, a: Float64Array, ao: number, count: number, out: Float64Array, o: number): void {
  out.fill(0, o, o + count);
  for (let f = 0; f < F; f++) {
    const af = a[ao + f];
    const col = f * stride;
    for (let i = 0; i < count; i++) {
      const d = af - pointsT[col + i];
      out[o + i] += d * d;
    }
  }
}

/**
 * squaredDistancesInto for four inputs at once, rows ao + r·aStride of `a` (r < 4) into rows
 * o + r·outStride of `out`: each load of a point's coordinate feeds four differences.
 */
function squaredDistances4Into(
  pointsT: Float64Array,
  stride: number,
  F: number,
  a: Float64Array,
  ao: number,
  aStride: number,
  count: number,
  out: Float64Array,
  o: number,
  outStride: number,
): void {
  for (let r = 0; r < 4; r++) out.fill(0, o + r * outStride, o + r * outStride + count);
  for (let f = 0; f < F; f++) {
    const b0 = a[ao + f];
    const b1 = a[ao + aStride + f];
    const b2 = a[ao + 2 * aStride + f];
    const b3 = a[ao + 3 * aStride + f];
    const col = f * stride;
    for (let i = 0, q = o; i < count; i++, q++) {
      const x = pointsT[col + i];
      const d0 = b0 - x;
      const d1 = b1 - x;
      const d2 = b2 - x;
      const d3 = b3 - x;
      out[q] += d0 * d0;
      out[q + outStride] += d1 * d1;
      out[q + 2 * outStride] += d2 * d2;
      out[q + 3 * outStride] += d3 * d3;
    }
  }
}

// predictBatch's loops, each in a function of its own so that V8 optimizes it as a whole rather than
// on-stack in the middle of one long call.

/** Squared distances (rows of v, C×n) → covariances in place; mean_j = Σ_i k_ji α_i. */
function covariancesAndMeans(v: Float64Array, c: number, n: number, signal: number, alpha: Float64Array, mean: Float64Array): void {
  for (let j = 0; j < c; j++) {
    const row = j * n;
    let m = 0;
    for (let i = 0; i < n; i++) {
      const kv = signal * matern52(Math.sqrt(v[row + i]));
      v[row + i] = kv;
      m += kv * alpha[i];
    }
    mean[j] = m;
  }
}

/** Latent variance signal − ‖v_j‖² per row of the whitened covariances (floored). */
function latentVariances(v: Float64Array, c: number, n: number, signal: number, variance: Float64Array): void {
  for (let q = 0; q < c; q++) {
    let ss = 0;
    const r0 = q * n;
    for (let i = 0; i < n; i++) ss += v[r0 + i] * v[r0 + i];
    variance[q] = Math.max(signal - ss, 1e-12 * signal);
  }
}

/** Points (rows) as one feature-major F×count matrix, for squaredDistancesInto. */
export function featureMajor(points: readonly Float64Array[], F: number): Float64Array {
  const c = points.length;
  const t = new Float64Array(F * c);
  for (let i = 0; i < c; i++) for (let f = 0; f < F; f++) t[f * c + i] = points[i][f];
  return t;
}

/** GP conditioned on (x, y) with fixed hyperparameters. */
export class GpPosterior {
  readonly n: number;
  readonly signal: number;
  readonly noise: number;
  readonly featureCount: number;
  /** Training inputs pre-multiplied by 1/ℓ, row-major n×F. */
  private readonly xs: Float64Array;
  /** The same, feature-major F×n: distances to many training points stream one feature at a time. */
  private readonly xsT: Float64Array;
  private readonly w: Float64Array;
  private readonly l: Float64Array;
  private readonly alpha: Float64Array;

  constructor(x: readonly Float64Array[], y: ArrayLike<number>, featureDim: Int32Array, readonly hyper: GpHyper) {
    const dims = hyper.length - 2;
    this.n = x.length;
    this.signal = Math.exp(hyper[dims]);
    this.noise = Math.exp(hyper[dims + 1]);
    this.featureCount = featureDim.length;
    this.w = featureScales(hyper, featureDim);
    this.xs = new Float64Array(this.n * this.featureCount);
    for (let i = 0; i < this.n; i++) this.scaleInto(x[i], this.xs, i * this.featureCount);
    const n = this.n;
    const F = this.featureCount;
    this.xsT = new Float64Array(F * n);
    for (let i = 0; i < n; i++) for (let f = 0; f < F; f++) this.xsT[f * n + i] = this.xs[i * F + f];
    // Lower triangle only (all `cholesky` reads): squared distances accumulate in k's own rows, four
    // rows at a time over the columns they share, then become covariances.
    const k = new Float64Array(n * n);
    const signal = this.signal;
    const xs = this.xs;
    let row = 0;
    for (; row + 4 <= n; row += 4) {
      squaredDistances4Into(this.xsT, n, F, xs, row * F, F, row, k, row * n, n);
      // The block's own triangle: row + r against rows row … row + r − 1.
      for (let r = 1; r < 4; r++)
        for (let j = row; j < row + r; j++) {
          let r2 = 0;
          for (let f = 0; f < F; f++) {
            const d = xs[(row + r) * F + f] - xs[j * F + f];
            r2 += d * d;
          }
          k[(row + r) * n + j] = r2;
        }
    }
    for (; row < n; row++) squaredDistancesInto(this.xsT, n, F, xs, row * F, row, k, row * n);
    for (let i = 0; i < n; i++) {
      k[i * n + i] = signal;
      for (let j = 0; j < i; j++) k[i * n + j] = signal * matern52(Math.sqrt(k[i * n + j]));
    }
    // Escalating jitter: the noise floor is tiny for a deterministic simulator, duplicates need more.
    let l: Float64Array | null = null;
    for (let jitter = this.noise + 1e-9 * this.signal; !l; jitter *= 10) {
      for (let i = 0; i < n; i++) k[i * n + i] = this.signal + jitter;
      l = cholesky(k, n);
      if (!l && jitter > this.signal) throw new Error('GP covariance is not positive definite even with heavy jitter');
    }
    this.l = l;
    this.alpha = solveUpper(l, n, solveLower(l, n, y, new Float64Array(n)), new Float64Array(n));
  }

  scale(x: Float64Array): Float64Array {
    const out = new Float64Array(this.featureCount);
    this.scaleInto(x, out, 0);
    return out;
  }

  private scaleInto(x: Float64Array, out: Float64Array, off: number): void {
    const w = this.w;
    for (let f = 0; f < w.length; f++) out[off + f] = x[f] * w[f];
  }

  private kernelScaled(a: Float64Array, ao: number, b: Float64Array, bo: number): number {
    let r2 = 0;
    for (let f = 0; f < this.featureCount; f++) {
      const d = a[ao + f] - b[bo + f];
      r2 += d * d;
    }
    return this.signal * matern52(Math.sqrt(r2));
  }

  /** Prior covariance between two *scaled* inputs. */
  kernelBetween(a: Float64Array, b: Float64Array): number {
    return this.kernelScaled(a, 0, b, 0);
  }

  /** k(x, X) for a scaled input. */
  crossCovariance(xs: Float64Array, out: Float64Array): Float64Array {
    return this.kernelsTo(xs, this.xsT, this.n, out);
  }

  /** k(x, p_i) for a scaled input and `count` scaled points stored feature-major (see featureMajor). */
  kernelsTo(xs: Float64Array, pointsT: Float64Array, count: number, out: Float64Array): Float64Array {
    squaredDistancesInto(pointsT, count, this.featureCount, xs, 0, count, out, 0);
    const signal = this.signal;
    for (let i = 0; i < count; i++) out[i] = signal * matern52(Math.sqrt(out[i]));
    return out;
  }

  mean(x: Float64Array): number {
    const k = this.crossCovariance(this.scale(x), new Float64Array(this.n));
    let m = 0;
    for (let i = 0; i < this.n; i++) m += k[i] * this.alpha[i];
    return m;
  }

  /** Posterior mean and latent variance (noise excluded) of one raw (unscaled) input. */
  predict(x: Float64Array): { mean: number; variance: number } {
    const b = this.predictBatch([x]);
    return { mean: b.mean[0], variance: b.variance[0] };
  }

  /**
   * Mean, latent variance and V = L⁻¹k(X, C) for many raw inputs. V is row-major C×n (row j =
   * candidate j); batch selection reuses it to condition on fantasies without refactorizing K.
   */
  predictBatch(xs: readonly Float64Array[]): { mean: Float64Array; variance: Float64Array; v: Float64Array; scaled: Float64Array[] } {
    const c = xs.length;
    const n = this.n;
    const mean = new Float64Array(c);
    const variance = new Float64Array(c);
    const v = new Float64Array(c * n);
    const F = this.featureCount;
    const all = new Float64Array(c * F);
    const scaled = xs.map((x, j) => {
      this.scaleInto(x, all, j * F);
      return all.subarray(j * F, (j + 1) * F);
    });
    let j = 0;
    for (; j + 4 <= c; j += 4) squaredDistances4Into(this.xsT, n, F, all, j * F, F, n, v, j * n, n);
    for (; j < c; j++) squaredDistancesInto(this.xsT, n, F, all, j * F, n, v, j * n);
    covariancesAndMeans(v, c, n, this.signal, this.alpha, mean);
    solveLowerRows(this.l, n, v, c);
    latentVariances(v, c, n, this.signal, variance);
    return { mean, variance, v, scaled };
  }

  /** Mean only (O(n·F) per input): enough for the feasibility model. */
  meanBatch(xs: readonly Float64Array[]): Float64Array {
    const out = new Float64Array(xs.length);
    const k = new Float64Array(this.n);
    for (let i = 0; i < xs.length; i++) {
      this.crossCovariance(this.scale(xs[i]), k);
      let m = 0;
      for (let j = 0; j < this.n; j++) m += k[j] * this.alpha[j];
      out[i] = m;
    }
    return out;
  }

  /** v = L⁻¹k(X, x) for a scaled input. */
  whiten(xs: Float64Array): Float64Array {
    const k = this.crossCovariance(xs, new Float64Array(this.n));
    return solveLower(this.l, this.n, k, new Float64Array(this.n));
  }
}
