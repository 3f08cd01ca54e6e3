import { describe, expect, it } from 'vitest';
import { ArimaModel, arimaForecast, fitArima } from '../../src/forecast/arima.js';
import { createForecaster } from '../../src/forecast/forecaster.js';
import { LOAD_PREDICTOR_PRESETS } from '../../src/forecast/spec.js';
import { gaussianSource, oneStepMae } from './seededRandom.js';

function ar1(phi: number, n: number, seed: number, mean = 0): number[] {
  const noise = gaussianSource(seed);
  let x = 0;
  return Array.from({ length: n }, () => (x = phi * x + noise()) + mean);
}

describe('arima fit', () => {
  it('recovers an AR(1) coefficient (φ = 0.7 on 500 points)', () => {
    for (const seed of [1, 2, 3]) {
      const fit = fitArima(ar1(0.7, 500, seed))!;
      expect(fit).not.toBeNull();
      expect(fit.d).toBe(0);
      expect(fit.p).toBeGreaterThanOrEqual(1);
      expect(Math.abs(fit.ar[0] - 0.7)).toBeLessThan(0.1);
    }
  });

  it('recovers a negative AR(1) coefficient around a non-zero mean', () => {
    const fit = fitArima(ar1(-0.5, 500, 4, 50))!;
    expect(fit.d).toBe(0);
    expect(Math.abs(fit.ar[0] + 0.5)).toBeLessThan(0.1);
    expect(fit.intercept / (1 - fit.ar[0])).toBeCloseTo(50, 0);
  });

  it('differences a random walk with drift', () => {
    const noise = gaussianSource(5);
    let x = 0;
    const ys = Array.from({ length: 400 }, () => (x += 2 + noise()));
    const fit = fitArima(ys)!;
    expect(fit.d).toBe(1);
    expect(fit.intercept).toBeGreaterThan(1.7);
    expect(fit.intercept).toBeLessThan(2.3);
  });

  it('picks up an MA(1) term', () => {
    const noise = gaussianSource(6);
    let prev = 0;
    const ys = Array.from({ length: 600 }, () => {
      const e = noise();
      const y = e + 0.8 * prev;
      prev = e;
      return y;
    });
    const fit = fitArima(ys)!;
    expect(fit.d).toBe(0);
    expect(fit.q).toBe(1);
    expect(Math.abs(fit.ma - 0.8)).toBeLessThan(0.15);
    // Any AR term that comes along is negligible.
    for (const phi of fit.ar) expect(Math.abs(phi)).toBeLessThan(0.2);
  });

  it('forecasts an exact line exactly (drift model)', () => {
    const ys = Array.from({ length: 30 }, (_, i) => 7 + 3 * i);
    const fit = fitArima(ys)!;
    expect(fit).toMatchObject({ d: 1, p: 0, q: 0 });
    expect(arimaForecast(fit, ys)).toBeCloseTo(97, 6);
  });

  it('returns null on degenerate data (too short or constant)', () => {
    expect(fitArima([1, 2, 3])).toBeNull();
    expect(fitArima(Array(50).fill(42))).toBeNull();
    const m = new ArimaModel();
    for (let i = 0; i < 50; i++) m.observe(42);
    expect(m.current).toBeNull();
    expect(Number.isNaN(m.forecast())).toBe(true);
  });
});

describe('arima forecaster', () => {
  it('falls back to the last value on constant data', () => {
    const f = createForecaster(LOAD_PREDICTOR_PRESETS.arima_raw);
    for (let i = 0; i < 40; i++) f.observe(42);
    expect(f.predict()).toBe(42);
  });

  it('beats the last value on an AR(1) and on a noisy ramp', () => {
    const ar = ar1(0.5, 400, 8, 100);
    expect(oneStepMae(createForecaster(LOAD_PREDICTOR_PRESETS.arima_raw), ar, 30)).toBeLessThan(
      0.9 * oneStepMae(createForecaster(LOAD_PREDICTOR_PRESETS.constant_last), ar, 30),
    );
    const noise = gaussianSource(9);
    const ramp = Array.from({ length: 400 }, (_, i) => 50 + 4 * i + 2 * noise());
    expect(oneStepMae(createForecaster(LOAD_PREDICTOR_PRESETS.arima_raw), ramp, 30)).toBeLessThan(
      0.7 * oneStepMae(createForecaster(LOAD_PREDICTOR_PRESETS.constant_last), ramp, 30),
    );
  });

  it('refits at once on a level shift instead of waiting for the next periodic refit', () => {
    const noise = gaussianSource(12);
    const m = new ArimaModel();
    for (let i = 0; i < 200; i++) m.observe(100 + 3 * noise());
    m.observe(300 + 3 * noise());
    m.observe(300 + 3 * noise());
    // Two points into the new level, a stale mean model would still say ≈ 101.
    expect(Math.abs(m.forecast() - 300)).toBeLessThan(15);
  });

  it('keeps working past its fitting window (periodic refits)', () => {
    const ar = ar1(0.7, 1200, 10, 100);
    const m = new ArimaModel();
    for (const y of ar) m.observe(y);
    expect(m.current).not.toBeNull();
    expect(Math.abs(m.current!.ar[0] - 0.7)).toBeLessThan(0.2);
    expect(Number.isFinite(m.forecast())).toBe(true);
  });
});
