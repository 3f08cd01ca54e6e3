import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { createForecaster, minimumDataPointsOf } from '../../src/forecast/forecaster.js';
import { LOAD_PREDICTOR_PRESETS, resolveLoadPredictor, type LoadPredictorSpec } from '../../src/forecast/spec.js';
import { gaussianSource, mulberry32 } from './seededRandom.js';

const presets = Object.entries(LOAD_PREDICTOR_PRESETS) as [string, LoadPredictorSpec][];

describe('forecaster warm-up', () => {
  it('uses the clarified minimum data points per family', () => {
    expect(minimumDataPointsOf(LOAD_PREDICTOR_PRESETS.constant_last)).toBe(1);
    expect(minimumDataPointsOf(LOAD_PREDICTOR_PRESETS.arima_log1p)).toBe(5);
    expect(minimumDataPointsOf(LOAD_PREDICTOR_PRESETS.prophet_w20_raw)).toBe(5);
    expect(minimumDataPointsOf(LOAD_PREDICTOR_PRESETS.kalman_default_raw)).toBe(5);
    expect(minimumDataPointsOf(LOAD_PREDICTOR_PRESETS.kalman_reactive_raw)).toBe(3);
    expect(createForecaster(resolveLoadPredictor({ load_predictor: 'kalman', kalman_min_points: 9 }).spec).minimumDataPoints).toBe(9);
  });

  it.each(presets)('%s predicts 0 before data and the last value during warm-up', (_id, spec) => {
    const f = createForecaster(spec);
    expect(f.predict()).toBe(0);
    const ramp = [10, 20, 30, 40, 50, 60, 70];
    for (let i = 0; i < f.minimumDataPoints - 1; i++) {
      f.observe(ramp[i]);
      expect(f.predict()).toBe(ramp[i]);
    }
  });
});

describe('forecaster answers on known series', () => {
  it.each(presets)('%s predicts a constant series exactly', (_id, spec) => {
    const f = createForecaster(spec);
    for (let i = 0; i < 60; i++) {
      if (i >= f.minimumDataPoints) expect(f.predict()).toBeCloseTo(250, 4);
      f.observe(250);
    }
  });

  it.each(presets.filter(([, s]) => s.load_predictor !== 'constant'))('%s follows an exact line (raw) or an exact exponential (log1p)', (_id, spec) => {
    const f = createForecaster(spec);
    // log1p variants see a line in log1p space when the series is expm1 of a line.
    const at = (i: number) => (spec.load_predictor_log1p ? Math.expm1(2 + 0.05 * i) : 100 + 4 * i);
    for (let i = 0; i < 80; i++) f.observe(at(i));
    expect(f.predict() / at(80)).toBeCloseTo(1, 3);
  });

  it.each(presets)('%s settles on the new level after a step', (_id, spec) => {
    const f = createForecaster(spec);
    for (let i = 0; i < 100; i++) f.observe(100);
    for (let i = 0; i < 60; i++) f.observe(300);
    expect(Math.abs(f.predict() / 300 - 1)).toBeLessThan(0.01);
  });

  it('constant_last predicts the last value', () => {
    const f = createForecaster(LOAD_PREDICTOR_PRESETS.constant_last);
    for (const x of [3, 9, 4]) f.observe(x);
    expect(f.predict()).toBe(4);
  });
});

describe('forecaster safety', () => {
  it.each(presets)('%s never returns NaN or a negative value on spiky near-zero data', (_id, spec) => {
    const rand = mulberry32(3);
    const f = createForecaster(spec);
    for (let i = 0; i < 300; i++) {
      const p = f.predict();
      expect(Number.isFinite(p)).toBe(true);
      expect(p).toBeGreaterThanOrEqual(0);
      // Mostly zero with occasional spikes, including a steep drop that trend models overshoot.
      const x = rand() < 0.8 ? 0 : rand() < 0.5 ? 1 : 1e5 * rand();
      f.observe(i === 150 ? 1e9 : x);
    }
  });

  it('clamps a downward extrapolation at 0', () => {
    const f = createForecaster(LOAD_PREDICTOR_PRESETS.kalman_reactive_raw);
    for (const x of [100, 80, 60, 40, 20, 5]) f.observe(x);
    expect(f.predict()).toBe(0);
  });

  it('rejects an invalid spec with an InputError', () => {
    expect(() => createForecaster({ load_predictor: 'prophet', load_predictor_log1p: false, prophet_window_size: 1 })).toThrow(InputError);
  });

  it('rejects non-finite observations', () => {
    const f = createForecaster(LOAD_PREDICTOR_PRESETS.arima_raw);
    expect(() => f.observe(Number.NaN)).toThrow(RangeError);
  });

  it.each(presets)('%s is deterministic', (_id, spec) => {
    const noise = gaussianSource(4);
    const ys = Array.from({ length: 150 }, (_, i) => 50 + 10 * Math.sin(i / 3) + 5 * noise());
    const run = () => {
      const f = createForecaster(spec);
      return ys.map((y) => {
        const p = f.predict();
        f.observe(y);
        return p;
      });
    };
    expect(run()).toEqual(run());
  });
});
