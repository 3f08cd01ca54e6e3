// The per-family model behind a Forecaster. It works on the forecaster's scale (raw or log1p) and
// may return NaN from forecast() when it cannot fit; the Forecaster then falls back to the last value.
export interface SeriesModel {
  observe(y: number): void;
  /** One-step-ahead forecast on the model's scale; NaN means "no usable fit". */
  forecast(): number;
}
