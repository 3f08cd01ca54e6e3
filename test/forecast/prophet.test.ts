import { describe, expect, it } from 'vitest';
import { createForecaster } from '../../src/forecast/forecaster.js';
import { ProphetModel, detectPeriod } from '../../src/forecast/prophet.js';
import { LOAD_PREDICTOR_PRESETS } from '../../src/forecast/spec.js';
import { gaussianSource, oneStepMae } from './seededRandom.js';

const weekly = (n: number, seed: number) => {
  const noise = gaussianSource(seed);
  return Array.from({ length: n }, (_, i) => 100 + 40 * Math.sin((2 * Math.PI * i) / 7) + 3 * noise());
};

describe('period detection', () => {
  it('finds a weekly-like period of 7', () => {
    expect(detectPeriod(weekly(50, 1))).toBe(7);
  });

  it('finds a period on top of a trend', () => {
    const ys = Array.from({ length: 50 }, (_, i) => 10 + 2 * i + 8 * Math.cos((2 * Math.PI * i) / 5));
    expect(detectPeriod(ys)).toBe(5);
  });

  it('finds nothing in a ramp, a constant or white noise', () => {
    expect(detectPeriod(Array.from({ length: 50 }, (_, i) => 3 * i))).toBeNull();
    expect(detectPeriod(Array(50).fill(9))).toBeNull();
    const noise = gaussianSource(2);
    expect(detectPeriod(Array.from({ length: 50 }, () => 100 + noise()))).toBeNull();
  });
});

describe('prophet-style forecaster', () => {
  it('captures a seasonal cycle far better than the last value', () => {
    const ys = weekly(300, 3);
    const prophet = oneStepMae(createForecaster(LOAD_PREDICTOR_PRESETS.prophet_w50_raw), ys, 60);
    const last = oneStepMae(createForecaster(LOAD_PREDICTOR_PRESETS.constant_last), ys, 60);
    expect(prophet).toBeLessThan(0.3 * last);
    expect(prophet).toBeLessThan(5); // noise σ = 3 → MAE ≈ 2.4 at best
  });

  it('extrapolates a linear trend', () => {
    const m = new ProphetModel(20);
    for (let i = 0; i < 40; i++) m.observe(5 + 2 * i);
    expect(m.forecast()).toBeCloseTo(85, 1);
  });

  it('only uses the last window_size points', () => {
    const m = new ProphetModel(20);
    for (let i = 0; i < 30; i++) m.observe(1000);
    for (let i = 0; i < 20; i++) m.observe(10);
    expect(m.forecast()).toBeCloseTo(10, 6);
  });

  it('is constant on constant data and 0 on all-zero data', () => {
    const m = new ProphetModel(50);
    for (let i = 0; i < 10; i++) m.observe(42);
    expect(m.forecast()).toBeCloseTo(42, 6);
    const z = new ProphetModel(50);
    for (let i = 0; i < 10; i++) z.observe(0);
    expect(z.forecast()).toBe(0);
  });
});
