import { describe, expect, it } from 'vitest';
import { createForecaster } from '../../src/forecast/forecaster.js';
import { KalmanModel } from '../../src/forecast/kalman.js';
import { LOAD_PREDICTOR_PRESETS } from '../../src/forecast/spec.js';
import { gaussianSource, oneStepMae } from './seededRandom.js';

describe('kalman local linear trend', () => {
  it('extrapolates an exact line from the third point on', () => {
    const m = new KalmanModel({ qLevel: 1, qTrend: 0.1, r: 10 });
    for (let i = 0; i < 3; i++) m.observe(10 + 3 * i);
    expect(m.forecast()).toBeCloseTo(19, 9);
    expect(m.slope).toBeCloseTo(3, 9);
  });

  it('tracks a trend: after a ramp begins the one-step error shrinks as the slope is learned', () => {
    const noise = gaussianSource(7);
    // Flat for 50 steps, then a ramp of slope 5 with observation noise σ = 3.
    const ys = Array.from({ length: 400 }, (_, i) => 200 + 5 * Math.max(0, i - 50) + 3 * noise());
    const f = createForecaster(LOAD_PREDICTOR_PRESETS.kalman_default_raw);
    const errors: number[] = [];
    for (const y of ys) {
      errors.push(Math.abs(f.predict() - y));
      f.observe(y);
    }
    const mean = (a: number[]) => a.reduce((s, x) => s + x, 0) / a.length;
    const justAfter = mean(errors.slice(51, 61));
    const settling = mean(errors.slice(61, 100));
    const settled = mean(errors.slice(300));
    expect(settling).toBeLessThan(justAfter);
    expect(settled).toBeLessThan(settling);
    // Settled error is of the order of the observation noise, i.e. no lag behind the trend
    // (constant_last would be off by the slope, 5, every step).
    expect(settled).toBeLessThan(4);
    const m = new KalmanModel({ qLevel: 1, qTrend: 0.1, r: 10 });
    for (const y of ys) m.observe(y);
    expect(m.slope).toBeGreaterThan(4.5);
    expect(m.slope).toBeLessThan(5.5);
  });

  it('on a flat noisy series smooths better than the last value', () => {
    const noise = gaussianSource(11);
    const ys = Array.from({ length: 300 }, () => 100 + 5 * noise());
    const kalman = oneStepMae(createForecaster(LOAD_PREDICTOR_PRESETS.kalman_default_raw), ys, 20);
    const last = oneStepMae(createForecaster(LOAD_PREDICTOR_PRESETS.constant_last), ys, 20);
    expect(kalman).toBeLessThan(0.9 * last);
  });

  it('reactive preset adapts to a step faster than the default preset', () => {
    const ys = Array.from({ length: 60 }, (_, i) => (i < 30 ? 100 : 200));
    const react = oneStepMae(createForecaster(LOAD_PREDICTOR_PRESETS.kalman_reactive_raw), ys, 31, 40);
    const dflt = oneStepMae(createForecaster(LOAD_PREDICTOR_PRESETS.kalman_default_raw), ys, 31, 40);
    expect(react).toBeLessThan(dflt);
  });
});
