// Matern-5/2 ARD Gaussian process on the encoded features (zero prior mean: callers standardize y).
//
// Hyperparameters θ = [log ℓ_1..log ℓ_D, log s², log σn²] (one length scale per *dimension*, tied
// across a categorical's one-hot columns). They maximize the log marginal likelihood plus weak
// log-normal priors (a MAP estimate: the priors keep tiny data sets from driving ℓ or σn to the
// bounds) by projected Adam on log-params with the analytic gradient ½ tr((ααᵀ − K⁻¹) ∂K/∂θ),
// warm-started from the previous fit. Deterministic: fixed iteration counts, no randomness.
import { cholesky, inverseFromCholesky, solveLower, solveUpper } from './cholesky.js';

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
    this.d2 = new Float64Array(dims * this.pairs);
    let p = 0;
    for (let i = 0; i < m; i++)
      for (let j = i + 1; j < m; j++, p++)
        for (let f = 0; f < featureDim.length; f++) {
          const diff = x[i][f] - x[j][f];
          if (diff !== 0) this.d2[featureDim[f] * this.pairs + p] += diff * diff;
        }
  }
}

/** Log marginal likelihood + log prior and its gradient w.r.t. the log hyperparameters; null if K is not PD. */
export function logPosterior(dist: PairDistances, y: ArrayLike<number>, hyper: GpHyper): LogPosterior | null {
  const m = dist.x.length;
  const dims = dist.dims;
  const s2 = Math.exp(hyper[dims]);
  const n2 = Math.exp(hyper[dims + 1]);
  const invL2 = new Float64Array(dims);
  for (let d = 0; d < dims; d++) invL2[d] = Math.exp(-2 * hyper[d]);
  const P = dist.pairs;
  const r2 = new Float64Array(P);
  for (let d = 0; d < dims; d++) {
    const w = invL2[d];
    const off = d * P;
    for (let p = 0; p < P; p++) r2[p] += dist.d2[off + p] * w;
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
  for (let d = 0; d < dims; d++) {
    const off = d * P;
    let g = 0;
    for (let q = 0; q < P; q++) g += wPair[q] * dkdr[q] * dist.d2[off + q];
    grad[d] = g * invL2[d];
  }
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
    const lp = logPosterior(dist, y, theta);
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

/** GP conditioned on (x, y) with fixed hyperparameters. */
export class GpPosterior {
  readonly n: number;
  readonly signal: number;
  readonly noise: number;
  readonly featureCount: number;
  /** Training inputs pre-multiplied by 1/ℓ, row-major n×F. */
  private readonly xs: Float64Array;
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
    const k = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      k[i * n + i] = this.signal;
      for (let j = 0; j < i; j++) {
        const v = this.kernelScaled(this.xs, i * this.featureCount, this.xs, j * this.featureCount);
        k[i * n + j] = v;
        k[j * n + i] = v;
      }
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
    for (let f = 0; f < this.featureCount; f++) out[off + f] = x[f] * this.w[f];
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
    for (let i = 0; i < this.n; i++) out[i] = this.kernelScaled(xs, 0, this.xs, i * this.featureCount);
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
   * The triangular solves run four candidates at a time so each L_ik load feeds four updates.
   */
  predictBatch(xs: readonly Float64Array[]): { mean: Float64Array; variance: Float64Array; v: Float64Array; scaled: Float64Array[] } {
    const c = xs.length;
    const n = this.n;
    const F = this.featureCount;
    const mean = new Float64Array(c);
    const variance = new Float64Array(c);
    const v = new Float64Array(c * n);
    const scaled = xs.map((x) => this.scale(x));
    for (let j = 0; j < c; j++) {
      const sj = scaled[j];
      const row = j * n;
      let m = 0;
      for (let i = 0; i < n; i++) {
        let r2 = 0;
        const off = i * F;
        for (let f = 0; f < F; f++) {
          const d = sj[f] - this.xs[off + f];
          r2 += d * d;
        }
        const kv = this.signal * matern52(Math.sqrt(r2));
        v[row + i] = kv;
        m += kv * this.alpha[i];
      }
      mean[j] = m;
    }
    const l = this.l;
    let j = 0;
    for (; j + 4 <= c; j += 4) {
      const r0 = j * n;
      const r1 = r0 + n;
      const r2 = r1 + n;
      const r3 = r2 + n;
      for (let i = 0; i < n; i++) {
        const li = i * n;
        let a0 = v[r0 + i];
        let a1 = v[r1 + i];
        let a2 = v[r2 + i];
        let a3 = v[r3 + i];
        for (let k = 0; k < i; k++) {
          const lik = l[li + k];
          a0 -= lik * v[r0 + k];
          a1 -= lik * v[r1 + k];
          a2 -= lik * v[r2 + k];
          a3 -= lik * v[r3 + k];
        }
        const inv = 1 / l[li + i];
        v[r0 + i] = a0 * inv;
        v[r1 + i] = a1 * inv;
        v[r2 + i] = a2 * inv;
        v[r3 + i] = a3 * inv;
      }
    }
    for (; j < c; j++) {
      const r0 = j * n;
      for (let i = 0; i < n; i++) {
        const li = i * n;
        let a0 = v[r0 + i];
        for (let k = 0; k < i; k++) a0 -= l[li + k] * v[r0 + k];
        v[r0 + i] = a0 / l[li + i];
      }
    }
    for (let q = 0; q < c; q++) {
      let ss = 0;
      const r0 = q * n;
      for (let i = 0; i < n; i++) ss += v[r0 + i] * v[r0 + i];
      variance[q] = Math.max(this.signal - ss, 1e-12 * this.signal);
    }
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
