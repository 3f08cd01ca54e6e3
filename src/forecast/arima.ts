// `arima`: small ARIMA(p, d, q) with p ≤ 2, d ≤ 1, q ≤ 1 and an intercept (a drift when d = 1).
//
// Fitting is Hannan–Rissanen: a long AR(m) by least squares gives innovation estimates, then each
// candidate order is a least-squares regression of z_t on its AR lags and the lagged innovation
// (all orders are column subsets of one design, so they share one Gram matrix per d).
// All candidates are scored on the same target points of the *level* series (the one-step residual
// of z equals the residual of y for d = 1), so their conditional sums of squares — and hence AICc —
// are comparable across d. Ties keep the simpler model (enumeration is simplest-first).
//
// The streaming model fits on the most recent ARIMA_WINDOW points and re-estimates every step while
// the history is short, then every ARIMA_REFIT_EVERY observations (between refits the coefficients
// are kept and only the innovation recursion advances) — this keeps a 1440-window sweep cheap.
// A surprising observation (beyond 3 residual standard deviations) refits immediately, so a level
// shift is not forecast with stale coefficients for several steps.
import { cholesky, choleskySolve } from './leastSquares.js';
import type { SeriesModel } from './seriesModel.js';

export const ARIMA_WINDOW = 240;
export const ARIMA_REFIT_EVERY = 8;
const REFIT_EVERY_STEP_BELOW = 64;
/** A one-step error beyond this many residual standard deviations (a level shift, a burst) refits at once. */
const SURPRISE_SIGMAS = 3;
/** Fewer points than this: no fit (the forecaster falls back to the last value). */
const MIN_FIT_POINTS = 6;
/** MA terms need innovation estimates from a long AR; only attempted with this much history. */
const MIN_MA_POINTS = 20;
const MAX_ABS_MA = 0.95;

export interface ArimaFit {
  p: number;
  d: 0 | 1;
  q: number;
  intercept: number;
  /** AR coefficients φ₁…φ_p on the (differenced) series. */
  ar: number[];
  /** MA coefficient θ₁ (0 when q = 0); clamped to |θ| ≤ 0.95 so the innovation recursion is stable. */
  ma: number;
  /** In-sample one-step residual variance (SSE / N); a much larger surprise triggers a refit. */
  sigma2: number;
  aicc: number;
}

interface Order {
  d: 0 | 1;
  p: number;
  q: number;
}

// Simplest first (by number of lag terms, then d, then q) so a tie keeps the simpler model.
const ORDERS: readonly Order[] = (() => {
  const all: Order[] = [];
  for (const d of [0, 1] as const) for (let p = 0; p <= 2; p++) for (let q = 0; q <= 1; q++) all.push({ d, p, q });
  return all.sort((a, b) => a.p + a.q - (b.p + b.q) || a.d - b.d || a.q - b.q);
})();

function differenced(y: ArrayLike<number>, d: 0 | 1): Float64Array {
  const z = new Float64Array(y.length);
  for (let t = d; t < y.length; t++) z[t] = d === 1 ? y[t] - y[t - 1] : y[t];
  return z;
}

/**
 * Residuals of a long AR(m) with intercept on z, valid for t ≥ d + m; null if singular.
 * The normal equations are accumulated straight from the lags (no design matrix) because this
 * runs on every refit and allocation churn dominated its cost.
 */
function longArInnovations(z: Float64Array, d: number, m: number): Float64Array | null {
  const n = z.length;
  const k = m + 1;
  const A = new Float64Array(k * k);
  const b = new Float64Array(k);
  const f = new Float64Array(k);
  f[0] = 1;
  for (let t = d + m; t < n; t++) {
    for (let i = 1; i <= m; i++) f[i] = z[t - i];
    const zt = z[t];
    for (let i = 0; i < k; i++) {
      const fi = f[i];
      b[i] += fi * zt;
      for (let j = 0; j <= i; j++) A[i * k + j] += fi * f[j];
    }
  }
  for (let i = 0; i < k; i++) for (let j = 0; j < i; j++) A[j * k + i] = A[i * k + j];
  const L = cholesky(A, k);
  if (!L) return null;
  const beta = choleskySolve(L, b, k);
  const e = new Float64Array(n);
  for (let t = d + m; t < n; t++) {
    let fitted = beta[0];
    for (let i = 1; i <= m; i++) fitted += beta[i] * z[t - i];
    e[t] = z[t] - fitted;
  }
  return e;
}

// Columns of the largest model; every candidate order is a subset, so one Gram matrix per d
// serves all six regressions: [intercept, z_{t−1}, z_{t−2}, ê_{t−1}] and the target z_t last.
const FULL_COLUMNS = 4;
const TARGET = FULL_COLUMNS;

function columnsOf(p: number, q: number): number[] {
  const cols = [0];
  for (let i = 1; i <= p; i++) cols.push(i);
  if (q > 0) cols.push(3);
  return cols;
}

/** Fit the AICc-best small ARIMA to y; null when y is too short or degenerate (e.g. constant). */
export function fitArima(y: ArrayLike<number>): ArimaFit | null {
  const n = y.length;
  if (n < MIN_FIT_POINTS) return null;
  let mean = 0;
  for (let t = 0; t < n; t++) mean += y[t];
  mean /= n;
  let variance = 0;
  for (let t = 0; t < n; t++) variance += (y[t] - mean) ** 2;
  variance /= n;
  if (!(variance > 1e-20 * Math.max(1, mean * mean))) return null;

  const allowMa = n >= MIN_MA_POINTS;
  const m = allowMa ? Math.min(8, Math.floor(n / 10) + 1) : 0;
  const t0 = allowMa ? m + 2 : 3; // first scored level index, common to every candidate
  const N = n - t0;
  // A perfect fit would give log(0); floor the SSE so exact fits tie and the penalty decides.
  const sseFloor = N * variance * 1e-12;

  const grams: Record<0 | 1, { G: Float64Array; hasMa: boolean }> = {
    0: fullGram(y, 0, allowMa ? m : 0, t0),
    1: fullGram(y, 1, allowMa ? m : 0, t0),
  };

  const W = FULL_COLUMNS + 1;
  let best: ArimaFit | null = null;
  for (const { d, p, q } of ORDERS) {
    const { G, hasMa } = grams[d];
    if (q > 0 && !hasMa) continue;
    const cols = columnsOf(p, q);
    const k = cols.length;
    if (N - k - 1 < 2) continue;
    const A = new Float64Array(k * k);
    const b = new Float64Array(k);
    for (let i = 0; i < k; i++) {
      b[i] = G[cols[i] * W + TARGET];
      for (let j = 0; j < k; j++) A[i * k + j] = G[cols[i] * W + cols[j]];
    }
    const L = cholesky(A, k);
    if (!L) continue;
    const beta = choleskySolve(L, b, k);
    // Least-squares residual sum of squares: zᵀz − βᵀXᵀz.
    let explained = 0;
    for (let i = 0; i < k; i++) explained += beta[i] * b[i];
    const sse = G[TARGET * W + TARGET] - explained;
    const aicc = N * Math.log(Math.max(sse, sseFloor) / N) + 2 * k + (2 * k * (k + 1)) / (N - k - 1);
    if (!Number.isFinite(aicc)) continue;
    if (best === null || aicc < best.aicc) {
      const ma = q > 0 ? Math.max(-MAX_ABS_MA, Math.min(MAX_ABS_MA, beta[p + 1])) : 0;
      const sigma2 = Math.max(sse, sseFloor) / N;
      best = { p, d, q, intercept: beta[0], ar: Array.from(beta.subarray(1, 1 + p)), ma, sigma2, aicc };
    }
  }
  return best;
}

/**
 * Gram matrix of [1, z_{t−1}, z_{t−2}, ê_{t−1}, z_t] over targets t ∈ [t0, n) for differencing d;
 * the ê column is left zero (hasMa false) when MA terms are not attempted or the long AR is singular.
 */
function fullGram(y: ArrayLike<number>, d: 0 | 1, m: number, t0: number): { G: Float64Array; hasMa: boolean } {
  const n = y.length;
  const z = differenced(y, d);
  const e = m > 0 ? longArInnovations(z, d, m) : null;
  const W = FULL_COLUMNS + 1;
  const G = new Float64Array(W * W);
  const row = new Float64Array(W);
  for (let t = t0; t < n; t++) {
    row[0] = 1;
    row[1] = z[t - 1];
    row[2] = z[t - 2];
    row[3] = e ? e[t - 1] : 0;
    row[4] = z[t];
    for (let i = 0; i < W; i++) {
      const ri = row[i];
      for (let j = 0; j <= i; j++) G[i * W + j] += ri * row[j];
    }
  }
  for (let i = 0; i < W; i++) for (let j = 0; j < i; j++) G[j * W + i] = G[i * W + j];
  return { G, hasMa: e !== null };
}

/** One-step prediction of z at the end of y, given the last innovation. */
function nextIncrement(fit: ArimaFit, y: ArrayLike<number>, lastInnovation: number): number {
  const n = y.length;
  let next = fit.intercept + fit.ma * lastInnovation;
  for (let i = 1; i <= fit.p; i++) {
    const t = n - i;
    next += fit.ar[i - 1] * (fit.d === 1 ? y[t] - y[t - 1] : y[t]);
  }
  return next;
}

/** Innovation e_{n−1} of the fitted model over y (conditional-sum-of-squares recursion from e = 0). */
function lastInnovationOf(fit: ArimaFit, y: ArrayLike<number>): number {
  const z = (t: number) => (fit.d === 1 ? y[t] - y[t - 1] : y[t]);
  let e = 0;
  for (let t = fit.d + fit.p; t < y.length; t++) {
    let pred = fit.intercept + fit.ma * e;
    for (let i = 1; i <= fit.p; i++) pred += fit.ar[i - 1] * z(t - i);
    e = z(t) - pred;
  }
  return e;
}

/** One-step-ahead forecast of the level after y with a given fit. */
export function arimaForecast(fit: ArimaFit, y: ArrayLike<number>): number {
  const next = nextIncrement(fit, y, lastInnovationOf(fit, y));
  return fit.d === 1 ? y[y.length - 1] + next : next;
}

export class ArimaModel implements SeriesModel {
  // History lives in a buffer of 2·ARIMA_WINDOW; when full, the newest window is moved to the
  // front, so the fitting window is always a contiguous view (no per-refit copies).
  private readonly buffer = new Float64Array(2 * ARIMA_WINDOW);
  private length = 0;
  private fit: ArimaFit | null = null;
  private sinceFit = 0;
  private lastInnovation = 0;

  observe(y: number): void {
    let surprised = false;
    if (this.fit) {
      this.lastInnovation = y - this.forecastWith(this.fit);
      surprised = this.lastInnovation ** 2 > SURPRISE_SIGMAS ** 2 * this.fit.sigma2;
    }
    if (this.length === this.buffer.length) {
      this.buffer.copyWithin(0, this.length - ARIMA_WINDOW, this.length);
      this.length = ARIMA_WINDOW;
    }
    this.buffer[this.length++] = y;
    this.sinceFit++;
    if (this.fit === null || surprised || this.length < REFIT_EVERY_STEP_BELOW || this.sinceFit >= ARIMA_REFIT_EVERY) {
      const window = this.history().subarray(Math.max(0, this.length - ARIMA_WINDOW));
      this.fit = fitArima(window);
      this.sinceFit = 0;
      this.lastInnovation = this.fit ? lastInnovationOf(this.fit, window) : 0;
    }
  }

  forecast(): number {
    return this.fit ? this.forecastWith(this.fit) : Number.NaN;
  }

  /** The model currently in use (null before enough data or on degenerate data). */
  get current(): ArimaFit | null {
    return this.fit;
  }

  private history(): Float64Array {
    return this.buffer.subarray(0, this.length);
  }

  private forecastWith(fit: ArimaFit): number {
    const y = this.history();
    const next = nextIncrement(fit, y, this.lastInnovation);
    return fit.d === 1 ? y[y.length - 1] + next : next;
  }
}
