// Public surface of the load-forecasting module (config, search and replay import from here).
export {
  DEFAULT_LOAD_PREDICTOR_CANDIDATES,
  LOAD_PREDICTOR_FAMILIES,
  LOAD_PREDICTOR_FAMILY_DEFAULTS,
  LOAD_PREDICTOR_PRESETS,
  LOAD_PREDICTOR_PRESET_IDS,
  LoadPredictorEntrySchema,
  LoadPredictorSpecSchema,
  isLoadPredictorPresetId,
  resolveLoadPredictor,
  type LoadPredictorEntry,
  type LoadPredictorFamily,
  type LoadPredictorPresetId,
  type LoadPredictorSpec,
} from './spec.js';
export { createForecaster, minimumDataPointsOf, type Forecaster } from './forecaster.js';
export { windowTrace, type LoadWindows, type TraceRequest } from './window.js';
export { log1pError, windowForecastLoss, type WindowLoad } from './loss.js';
export {
  FALLBACK_LOAD_PREDICTOR,
  sweepLoadPredictors,
  winnerForInterval,
  type LoadPredictorCandidate,
  type LoadPredictorIntervalResult,
  type LoadPredictorSweepInput,
  type LoadPredictorSweepReason,
  type LoadPredictorSweepResult,
} from './subSweep.js';
