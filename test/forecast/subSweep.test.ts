import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { resolveLoadPredictor, DEFAULT_LOAD_PREDICTOR_CANDIDATES } from '../../src/forecast/spec.js';
import { sweepLoadPredictors, winnerForInterval, type LoadPredictorSweepInput } from '../../src/forecast/subSweep.js';
import type { TraceRequest } from '../../src/forecast/window.js';
import { gaussianSource } from './seededRandom.js';

/** A trace with the given request count per window, spread evenly inside each window (first at 0 ms). */
function traceFromCounts(counts: number[], intervalSeconds: number, isl = (_k: number) => 1000, osl = (_k: number) => 200): TraceRequest[] {
  const out: TraceRequest[] = [];
  const ms = intervalSeconds * 1000;
  counts.forEach((c, k) => {
    for (let j = 0; j < c; j++) out.push({ arrival_ms: k * ms + (j * ms) / c, isl: isl(k), osl: osl(k) });
  });
  return out;
}

const candidates = (...ids: string[]) => ids.map((id) => resolveLoadPredictor(id));

function sweep(partial: Partial<LoadPredictorSweepInput>) {
  return sweepLoadPredictors({
    requests: [],
    static_workload: false,
    throughput_intervals_seconds: [60],
    candidates: candidates(...DEFAULT_LOAD_PREDICTOR_CANDIDATES),
    ...partial,
  });
}

const lossOf = (r: ReturnType<typeof sweep>, id: string) => r.per_interval[0].losses.find((l) => l.id === id)!.loss!;

describe('forecast-loss sub-sweep', () => {
  it('a steady linear ramp: a trend model beats constant_last', () => {
    const noise = gaussianSource(1);
    const counts = Array.from({ length: 120 }, (_, k) => Math.round(20 + 5 * k + 2 * noise()));
    const r = sweep({ requests: traceFromCounts(counts, 60) });
    const [iv] = r.per_interval;
    expect(r.reason).toBe('forecast_loss');
    expect(iv).toMatchObject({ interval_seconds: 60, windows: 120, scored_windows: 115 });
    expect(iv.winner).not.toBe('constant_last');
    expect(lossOf(r, iv.winner)).toBeLessThan(0.6 * lossOf(r, 'constant_last'));
    // Every trend-capable family beats the last value on a ramp.
    for (const id of ['arima_raw', 'prophet_w20_raw', 'kalman_default_raw']) expect(lossOf(r, id)).toBeLessThan(lossOf(r, 'constant_last'));
  });

  it('a level that wanders (random walk): constant_last wins, trend extrapolation loses', () => {
    const noise = gaussianSource(2);
    let level = 300;
    const counts = Array.from({ length: 150 }, () => Math.round((level += 5 * noise())));
    const r = sweep({ requests: traceFromCounts(counts, 60) });
    expect(r.per_interval[0].winner).toBe('constant_last');
    expect(lossOf(r, 'prophet_w20_raw')).toBeGreaterThan(1.3 * lossOf(r, 'constant_last'));
  });

  it('a flat noisy series: a smoothing level model wins and every smoother beats the last value', () => {
    const noise = gaussianSource(2);
    const counts = Array.from({ length: 150 }, () => Math.round(100 + 10 * noise()));
    const r = sweep({ requests: traceFromCounts(counts, 60) });
    // For i.i.d. noise the mean is the optimal forecast; ARIMA selects exactly that model.
    expect(['arima_raw', 'arima_log1p']).toContain(r.per_interval[0].winner);
    for (const id of ['kalman_default_raw', 'prophet_w50_raw']) expect(lossOf(r, id)).toBeLessThan(0.9 * lossOf(r, 'constant_last'));
  });

  it('a periodic load: the Prophet-style model wins', () => {
    const counts = Array.from({ length: 200 }, (_, k) => Math.round(100 + 60 * Math.sin((2 * Math.PI * k) / 8)));
    const r = sweep({
      requests: traceFromCounts(counts, 60),
      candidates: candidates('constant_last', 'kalman_default_raw', 'prophet_w50_raw'),
    });
    expect(r.per_interval[0].winner).toBe('prophet_w50_raw');
  });

  it('sweeps each distinct interval once, sorted, and answers per interval', () => {
    const counts = Array.from({ length: 60 }, (_, k) => 10 + k);
    const r = sweep({ requests: traceFromCounts(counts, 60), throughput_intervals_seconds: [600, 180, 600] });
    expect(r.per_interval.map((p) => p.interval_seconds)).toEqual([180, 600]);
    expect(r.per_interval.map((p) => p.windows)).toEqual([20, 6]);
    expect(winnerForInterval(r, 180)).toBe(r.per_interval[0].winner);
    expect(() => winnerForInterval(r, 60)).toThrow(/no result for interval 60s/);
  });

  it('falls back to constant_last when no window is past the warm-up', () => {
    const r = sweep({ requests: traceFromCounts([5, 6, 7], 60) });
    expect(r.reason).toBe('forecast_loss');
    expect(r.per_interval[0]).toMatchObject({ winner: 'constant_last', windows: 3, scored_windows: 0, fallback_reason: 'no_scoreable_window' });
    expect(r.per_interval[0].losses.every((l) => l.loss === null)).toBe(true);
  });

  it('warm-up is the largest minimum_data_points across candidates', () => {
    const counts = Array.from({ length: 20 }, (_, k) => 10 + k);
    const onlyConstant = sweep({ requests: traceFromCounts(counts, 60), candidates: candidates('constant_last') });
    expect(onlyConstant.per_interval[0].scored_windows).toBe(19);
    const withKalman = sweep({
      requests: traceFromCounts(counts, 60),
      candidates: [...candidates('constant_last'), resolveLoadPredictor({ load_predictor: 'kalman', kalman_min_points: 8 })],
    });
    expect(withKalman.per_interval[0].scored_windows).toBe(12);
  });

  it('ties keep the first candidate', () => {
    const counts = Array.from({ length: 30 }, (_, k) => 50 + (k % 3));
    const requests = traceFromCounts(counts, 60);
    const constantDict = { id: 'my_constant', spec: resolveLoadPredictor({ load_predictor: 'constant' }).spec };
    const a = sweep({ requests, candidates: [constantDict, ...candidates('constant_last')] });
    expect(lossOf(a, 'my_constant')).toBe(lossOf(a, 'constant_last'));
    expect(a.per_interval[0].winner).toBe('my_constant');
    const b = sweep({ requests, candidates: [...candidates('constant_last'), constantDict] });
    expect(b.per_interval[0].winner).toBe('constant_last');
  });

  it('short-circuits a static workload to constant_last', () => {
    const r = sweep({ static_workload: true, requests: traceFromCounts([1, 2, 3, 4, 5, 6, 7, 8], 60), throughput_intervals_seconds: [180, 600] });
    expect(r.reason).toBe('static_workload_constant');
    expect(r.per_interval.map((p) => [p.interval_seconds, p.winner])).toEqual([
      [180, 'constant_last'],
      [600, 'constant_last'],
    ]);
    expect(winnerForInterval(r, 600)).toBe('constant_last');
  });

  it('reports when no policy scales on throughput', () => {
    const r = sweep({ throughput_intervals_seconds: [], requests: traceFromCounts([1, 2, 3], 60) });
    expect(r).toEqual({ reason: 'no_throughput_scaling_candidate', per_interval: [] });
    expect(winnerForInterval(r, 180)).toBe('constant_last');
  });

  it('rejects an empty candidate list and non-positive intervals', () => {
    expect(() => sweep({ candidates: [], requests: traceFromCounts([1], 60) })).toThrow(InputError);
    expect(() => sweep({ throughput_intervals_seconds: [0] })).toThrow(InputError);
  });

  it('is deterministic', () => {
    const noise = gaussianSource(3);
    const counts = Array.from({ length: 80 }, (_, k) => Math.max(0, Math.round(40 + 20 * Math.sin(k / 5) + 5 * noise())));
    const requests = traceFromCounts(counts, 60, (k) => 800 + 10 * k, (k) => 100 + (k % 7));
    expect(sweep({ requests })).toEqual(sweep({ requests }));
  });
});
