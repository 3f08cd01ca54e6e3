// `kalman`: local linear trend model
//   level_t = level_{t-1} + trend_{t-1} + η,  η ~ N(0, q_level)
//   trend_t = trend_{t-1} + ζ,                ζ ~ N(0, q_trend)
//   y_t     = level_t + ε,                    ε ~ N(0, r)
// The forecast is the one-step-ahead level + trend of the filtered state.
import type { SeriesModel } from './seriesModel.js';

export interface KalmanParams {
  qLevel: number;
  qTrend: number;
  r: number;
}

export class KalmanModel implements SeriesModel {
  private n = 0;
  private first = 0;
  // Filtered state and its covariance [[p00, p01], [p01, p11]].
  private level = 0;
  private trend = 0;
  private p00 = 0;
  private p01 = 0;
  private p11 = 0;

  constructor(private readonly params: KalmanParams) {}

  observe(y: number): void {
    this.n++;
    if (this.n === 1) {
      this.first = y;
      this.level = y;
      return;
    }
    const { r } = this.params;
    if (this.n === 2) {
      // Exact two-point start instead of an arbitrary diffuse prior: level = y₁, trend = y₁ − y₀,
      // with the covariance those two noisy observations imply.
      this.level = y;
      this.trend = y - this.first;
      this.p00 = r;
      this.p01 = r;
      this.p11 = 2 * r;
      return;
    }
    // Predict.
    const { qLevel, qTrend } = this.params;
    const lp = this.level + this.trend;
    const tp = this.trend;
    const a00 = this.p00 + 2 * this.p01 + this.p11 + qLevel;
    const a01 = this.p01 + this.p11;
    const a11 = this.p11 + qTrend;
    // Update with y (H = [1, 0]).
    const s = a00 + r;
    const k0 = a00 / s;
    const k1 = a01 / s;
    const innovation = y - lp;
    this.level = lp + k0 * innovation;
    this.trend = tp + k1 * innovation;
    this.p00 = (1 - k0) * a00;
    this.p01 = (1 - k0) * a01;
    this.p11 = a11 - k1 * a01;
  }

  forecast(): number {
    if (this.n === 0) return Number.NaN;
    return this.level + this.trend;
  }

  /** Current filtered trend (per step), for inspection. */
  get slope(): number {
    return this.trend;
  }
}
