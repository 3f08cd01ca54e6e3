// Forecast-loss sub-sweep (`sweep_load_predictor`): picks, per throughput-scaling interval, the
// load predictor with the lowest mean one-step-ahead loss on the trace. It runs outside the main
// optimizer study; the winner is pinned into every throughput-scaling candidate with that interval.
import { InputError } from '../errors.js';
import { createForecaster, minimumDataPointsOf, type Forecaster } from './forecaster.js';
import { windowForecastLoss } from './loss.js';
import type { LoadPredictorSpec } from './spec.js';
import { windowTrace, type TraceRequest } from './window.js';

/** What every interval falls back to (and what static workloads always get). */
export const FALLBACK_LOAD_PREDICTOR = 'constant_last';

export interface LoadPredictorCandidate {
  id: string;
  spec: LoadPredictorSpec;
}

export interface LoadPredictorSweepInput {
  /** Trace requests, arrivals normalized so the first is at 0 ms (ignored for a static workload). */
  requests: readonly TraceRequest[];
  /** True when the workload is static/synthetic (no trace): every interval gets constant_last. */
  static_workload: boolean;
  /** Throughput adjustment intervals (s) of the kept scaling policies; empty = none scales on throughput. */
  throughput_intervals_seconds: readonly number[];
  /** Resolved `load_predictor_candidates`, in config order (order breaks ties). */
  candidates: readonly LoadPredictorCandidate[];
}

export type LoadPredictorSweepReason = 'forecast_loss' | 'static_workload_constant' | 'no_throughput_scaling_candidate';

export interface LoadPredictorIntervalResult {
  interval_seconds: number;
  winner: string;
  /** Windows the trace was cut into at this interval. */
  windows: number;
  /** Windows after the warm-up, i.e. the ones every loss is averaged over. */
  scored_windows: number;
  /** Mean loss per candidate, in candidate order; null when nothing was scored. */
  losses: { id: string; loss: number | null }[];
  /** Set when no window could be scored (trace shorter than the warm-up) and constant_last was used. */
  fallback_reason?: 'no_scoreable_window';
}

export interface LoadPredictorSweepResult {
  reason: LoadPredictorSweepReason;
  per_interval: LoadPredictorIntervalResult[];
}

/** Sorted distinct intervals, so results do not depend on the order policies were listed in. */
function distinctIntervals(intervals: readonly number[]): number[] {
  for (const s of intervals) {
    if (!(Number.isFinite(s) && s > 0)) {
      throw new InputError(`throughput_adjustment_interval_seconds must be a positive number, got ${s}`);
    }
  }
  return [...new Set(intervals)].sort((a, b) => a - b);
}

/** The predictor's forecast, or the last observed value if it throws or is not finite. */
function predictOrLast(f: Forecaster, last: number): number {
  try {
    const v = f.predict();
    return Number.isFinite(v) ? v : last;
  } catch {
    return last;
  }
}

/** Mean one-step-ahead loss of one predictor over windows [warmup, end); null if none scored. */
function meanLoss(spec: LoadPredictorSpec, count: Float64Array, isl: Float64Array, osl: Float64Array, warmup: number): number | null {
  const fn = createForecaster(spec);
  const fi = createForecaster(spec);
  const fo = createForecaster(spec);
  let sum = 0;
  let scored = 0;
  for (let k = 0; k < count.length; k++) {
    if (k >= warmup) {
      const predicted = {
        numReq: predictOrLast(fn, count[k - 1]),
        isl: predictOrLast(fi, isl[k - 1]),
        osl: predictOrLast(fo, osl[k - 1]),
      };
      sum += windowForecastLoss(predicted, { numReq: count[k], isl: isl[k], osl: osl[k] });
      scored++;
    }
    fn.observe(count[k]);
    fi.observe(isl[k]);
    fo.observe(osl[k]);
  }
  return scored > 0 ? sum / scored : null;
}

export function sweepLoadPredictors(input: LoadPredictorSweepInput): LoadPredictorSweepResult {
  const intervals = distinctIntervals(input.throughput_intervals_seconds);
  if (intervals.length === 0) return { reason: 'no_throughput_scaling_candidate', per_interval: [] };
  if (input.candidates.length === 0) {
    throw new InputError('load_predictor_candidates is empty; list at least one predictor (e.g. constant_last)');
  }
  if (input.static_workload) {
    return {
      reason: 'static_workload_constant',
      per_interval: intervals.map((interval_seconds) => ({
        interval_seconds,
        winner: FALLBACK_LOAD_PREDICTOR,
        windows: 0,
        scored_windows: 0,
        losses: input.candidates.map((c) => ({ id: c.id, loss: null })),
      })),
    };
  }

  const warmup = Math.max(...input.candidates.map((c) => minimumDataPointsOf(c.spec)));
  const per_interval = intervals.map((interval_seconds): LoadPredictorIntervalResult => {
    const { count, meanIsl, meanOsl } = windowTrace(input.requests, interval_seconds);
    // Forecasters are deterministic, so equal specs (e.g. a dict equal to a preset) share one run.
    const bySpec = new Map<string, number | null>();
    const losses = input.candidates.map((c) => {
      const key = JSON.stringify(c.spec, Object.keys(c.spec).sort());
      let loss = bySpec.get(key);
      if (loss === undefined) {
        loss = meanLoss(c.spec, count, meanIsl, meanOsl, warmup);
        bySpec.set(key, loss);
      }
      return { id: c.id, loss };
    });
    let winner: { id: string; loss: number } | null = null;
    for (const l of losses) {
      // Strictly lower: ties keep the earlier candidate.
      if (l.loss !== null && (winner === null || l.loss < winner.loss)) winner = { id: l.id, loss: l.loss };
    }
    const scored_windows = Math.max(0, count.length - warmup);
    const result: LoadPredictorIntervalResult = {
      interval_seconds,
      winner: winner?.id ?? FALLBACK_LOAD_PREDICTOR,
      windows: count.length,
      scored_windows,
      losses,
    };
    if (winner === null) result.fallback_reason = 'no_scoreable_window';
    return result;
  });
  return { reason: 'forecast_loss', per_interval };
}

/**
 * The predictor pinned for a throughput-scaling policy with this interval. Without throughput
 * scaling nothing forecasts, and constant_last is returned; asking for an interval the sweep did not
 * cover is a caller bug.
 */
export function winnerForInterval(result: LoadPredictorSweepResult, interval_seconds: number): string {
  if (result.reason === 'no_throughput_scaling_candidate') return FALLBACK_LOAD_PREDICTOR;
  const entry = result.per_interval.find((p) => p.interval_seconds === interval_seconds);
  if (!entry) {
    const swept = result.per_interval.map((p) => p.interval_seconds).join(', ');
    throw new Error(`load-predictor sub-sweep has no result for interval ${interval_seconds}s (swept: ${swept})`);
  }
  return entry.winner;
}
