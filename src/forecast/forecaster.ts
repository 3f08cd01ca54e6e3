// A Forecaster wraps one family's model with the behaviour every load predictor shares:
// optional log1p scale (fit on log1p(x), answer expm1(forecast)), the warm-up (until
// `minimumDataPoints` observations the prediction is the last value), and safety: a forecast that
// is not finite falls back to the last value, and predictions are clamped to ≥ 0 (loads are counts
// and token means). Before any observation the prediction is 0.
import { ArimaModel } from './arima.js';
import { ConstantModel } from './constant.js';
import { KalmanModel } from './kalman.js';
import { ProphetModel } from './prophet.js';
import type { SeriesModel } from './seriesModel.js';
import { InputError } from '../errors.js';
import {
  LOAD_PREDICTOR_FAMILY_DEFAULTS,
  LoadPredictorSpecSchema,
  type LoadPredictorFamily,
  type LoadPredictorSpec,
} from './spec.js';

export interface Forecaster {
  /** Add the value observed for the step that was just predicted. */
  observe(x: number): void;
  /** Forecast of the next value; always finite and ≥ 0. */
  predict(): number;
  /** Observations needed before the family's own forecast is used (warm-up). */
  readonly minimumDataPoints: number;
}

/** Warm-up per family (CLARIFICATIONS §E); kalman uses its `kalman_min_points`. */
export function minimumDataPointsOf(spec: LoadPredictorSpec): number {
  const byFamily: Record<LoadPredictorFamily, number> = {
    constant: 1,
    arima: 5,
    prophet: 5,
    kalman: spec.kalman_min_points ?? LOAD_PREDICTOR_FAMILY_DEFAULTS.kalman_min_points,
  };
  return byFamily[spec.load_predictor];
}

function modelOf(spec: LoadPredictorSpec): SeriesModel {
  const d = LOAD_PREDICTOR_FAMILY_DEFAULTS;
  switch (spec.load_predictor) {
    case 'constant':
      return new ConstantModel();
    case 'arima':
      return new ArimaModel();
    case 'prophet':
      return new ProphetModel(spec.prophet_window_size ?? d.prophet_window_size);
    case 'kalman':
      return new KalmanModel({
        qLevel: spec.kalman_q_level ?? d.kalman_q_level,
        qTrend: spec.kalman_q_trend ?? d.kalman_q_trend,
        r: spec.kalman_r ?? d.kalman_r,
      });
  }
}

class ScaledForecaster implements Forecaster {
  private count = 0;
  private last = 0;

  constructor(
    private readonly model: SeriesModel,
    private readonly log1p: boolean,
    readonly minimumDataPoints: number,
  ) {}

  observe(x: number): void {
    if (!Number.isFinite(x)) throw new RangeError(`forecaster observation must be finite, got ${x}`);
    const v = Math.max(0, x);
    this.count++;
    this.last = v;
    this.model.observe(this.log1p ? Math.log1p(v) : v);
  }

  predict(): number {
    if (this.count === 0) return 0;
    if (this.count < this.minimumDataPoints) return this.last;
    const f = this.model.forecast();
    const v = this.log1p ? Math.expm1(f) : f;
    return Number.isFinite(v) ? Math.max(0, v) : this.last;
  }
}

/** A fresh forecaster for one series (the sub-sweep makes one each for num_req, ISL and OSL). */
export function createForecaster(spec: LoadPredictorSpec): Forecaster {
  const checked = LoadPredictorSpecSchema.safeParse(spec);
  if (!checked.success) {
    const detail = checked.error.issues.map((i) => `${i.path.join('.') || '(spec)'}: ${i.message}`).join('; ');
    throw new InputError(`invalid load predictor spec ${JSON.stringify(spec)}: ${detail}`);
  }
  return new ScaledForecaster(modelOf(spec), spec.load_predictor_log1p, minimumDataPointsOf(spec));
}
