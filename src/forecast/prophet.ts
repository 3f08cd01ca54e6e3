// `prophet`: a Prophet-style additive model refit on a rolling window of the last
// `prophet_window_size` points and evaluated one step past the window:
//   y(t) = a + b·t + Σ_j δ_j·(t − c_j)₊ + Σ_k [α_k cos(2πk·i/P) + β_k sin(2πk·i/P)]
// with t = i/n (time scaled to the window, as Prophet does), changepoints c_j evenly spaced over the
// first 80% of the window, and y scaled by max|y|. Prophet's Laplace prior on δ and Gaussian prior on
// the seasonal coefficients become ridge penalties; intercept and base slope are (almost) free.
//
// Seasonality: interval series have no calendar, so the period P (in windows) is detected per fit
// from the autocorrelation of the linearly detrended window: the highest local ACF peak at lags
// 2…n/2 with ACF ≥ SEASONAL_ACF_THRESHOLD (i.e. at least two full cycles visible). No peak → no
// seasonal terms. Up to 3 Fourier harmonics are used.
import { cholesky, choleskySolve, crossProduct, gram } from './leastSquares.js';
import type { SeriesModel } from './seriesModel.js';

export const SEASONAL_ACF_THRESHOLD = 0.3;
const MAX_CHANGEPOINTS = 5;
const MAX_HARMONICS = 3;
const CHANGEPOINT_RANGE = 0.8;
const CHANGEPOINT_PENALTY = 0.1;
const SEASONAL_PENALTY = 0.01;
const FREE_PENALTY = 1e-9;
const MIN_FIT_POINTS = 3;

/** Seasonal period (in steps) of y, or null when there is no clear autocorrelation peak. */
export function detectPeriod(y: ArrayLike<number>): number | null {
  const n = y.length;
  const maxLag = Math.floor(n / 2);
  if (maxLag < 2) return null;
  // Detrend with the least-squares line so a ramp does not look like a long period.
  const tMean = (n - 1) / 2;
  let yMean = 0;
  for (let i = 0; i < n; i++) yMean += y[i];
  yMean /= n;
  let sty = 0;
  let stt = 0;
  for (let i = 0; i < n; i++) {
    sty += (i - tMean) * (y[i] - yMean);
    stt += (i - tMean) ** 2;
  }
  const slope = sty / stt;
  const r = new Float64Array(n);
  let energy = 0;
  for (let i = 0; i < n; i++) {
    r[i] = y[i] - yMean - slope * (i - tMean);
    energy += r[i] * r[i];
  }
  if (!(energy > 1e-18 * Math.max(1, yMean * yMean) * n)) return null;
  const acf = new Float64Array(maxLag + 2);
  for (let lag = 1; lag <= Math.min(maxLag + 1, n - 1); lag++) {
    let s = 0;
    for (let i = lag; i < n; i++) s += r[i] * r[i - lag];
    acf[lag] = s / energy;
  }
  let best: number | null = null;
  for (let lag = 2; lag <= maxLag; lag++) {
    const a = acf[lag];
    const isPeak = a > acf[lag - 1] && (lag + 1 > n - 1 || a >= acf[lag + 1]);
    if (isPeak && a >= SEASONAL_ACF_THRESHOLD && (best === null || a > acf[best])) best = lag;
  }
  return best;
}

interface Design {
  k: number;
  X: Float64Array;
  /** Cholesky factor of XᵀX + penalties. */
  L: Float64Array;
  /** Feature row at the forecast point i = n. */
  next: Float64Array;
}

function featureRow(i: number, n: number, changepoints: readonly number[], period: number | null, out: Float64Array, o: number): void {
  const t = i / n;
  let c = o;
  out[c++] = 1;
  out[c++] = t;
  for (const cp of changepoints) out[c++] = Math.max(0, t - cp);
  if (period !== null) {
    for (let h = 1; h <= harmonics(period); h++) {
      const angle = (2 * Math.PI * h * i) / period;
      out[c++] = Math.cos(angle);
      if (2 * h !== period) out[c++] = Math.sin(angle);
    }
  }
}

function harmonics(period: number): number {
  return Math.min(MAX_HARMONICS, Math.floor(period / 2));
}

function buildDesign(n: number, period: number | null): Design | null {
  const numCp = Math.min(MAX_CHANGEPOINTS, Math.floor(n / 10));
  const changepoints = Array.from({ length: numCp }, (_, j) => (CHANGEPOINT_RANGE * (j + 1)) / numCp);
  let seasonal = 0;
  if (period !== null) for (let h = 1; h <= harmonics(period); h++) seasonal += 2 * h === period ? 1 : 2;
  const k = 2 + numCp + seasonal;
  const penalty = new Float64Array(k);
  penalty.fill(FREE_PENALTY, 0, 2);
  penalty.fill(CHANGEPOINT_PENALTY, 2, 2 + numCp);
  penalty.fill(SEASONAL_PENALTY, 2 + numCp);
  const X = new Float64Array(n * k);
  for (let i = 0; i < n; i++) featureRow(i, n, changepoints, period, X, i * k);
  const L = cholesky(gram(X, n, k, penalty), k);
  if (!L) return null;
  const next = new Float64Array(k);
  featureRow(n, n, changepoints, period, next, 0);
  return { k, X, L, next };
}

/**
 * Fits and forecasts one step past the window. The design (and its factorization) depends only on
 * the window length and the detected period, so it is cached per model.
 */
export class ProphetModel implements SeriesModel {
  private readonly window: number[] = [];
  private readonly designs = new Map<string, Design | null>();

  constructor(private readonly windowSize: number) {}

  observe(y: number): void {
    this.window.push(y);
    if (this.window.length > this.windowSize) this.window.shift();
  }

  forecast(): number {
    const y = this.window;
    const n = y.length;
    if (n < MIN_FIT_POINTS) return Number.NaN;
    let scale = 0;
    for (let i = 0; i < n; i++) scale = Math.max(scale, Math.abs(y[i]));
    if (scale === 0) return 0;
    const period = detectPeriod(y);
    const key = `${n}:${period ?? 0}`;
    let design = this.designs.get(key);
    if (design === undefined) {
      if (this.designs.size >= 64) this.designs.clear();
      design = buildDesign(n, period);
      this.designs.set(key, design);
    }
    if (design === null) return Number.NaN;
    const scaled = new Float64Array(n);
    for (let i = 0; i < n; i++) scaled[i] = y[i] / scale;
    const beta = choleskySolve(design.L, crossProduct(design.X, scaled, n, design.k), design.k);
    let next = 0;
    for (let i = 0; i < design.k; i++) next += design.next[i] * beta[i];
    return next * scale;
  }
}
