import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import {
  DEFAULT_LOAD_PREDICTOR_CANDIDATES,
  LOAD_PREDICTOR_PRESETS,
  LoadPredictorSpecSchema,
  resolveLoadPredictor,
} from '../../src/forecast/spec.js';

describe('load predictor presets', () => {
  it('has the 11 seed ids in the seed order', () => {
    expect(Object.keys(LOAD_PREDICTOR_PRESETS)).toEqual([
      'constant_last',
      'arima_raw',
      'arima_log1p',
      'prophet_w20_raw',
      'prophet_w20_log1p',
      'prophet_w50_raw',
      'prophet_w50_log1p',
      'kalman_default_raw',
      'kalman_default_log1p',
      'kalman_reactive_raw',
      'kalman_reactive_log1p',
    ]);
    expect(DEFAULT_LOAD_PREDICTOR_CANDIDATES).toEqual(Object.keys(LOAD_PREDICTOR_PRESETS));
  });

  it('every preset is a valid spec with the seed fields', () => {
    for (const spec of Object.values(LOAD_PREDICTOR_PRESETS)) expect(LoadPredictorSpecSchema.safeParse(spec).success).toBe(true);
    expect(LOAD_PREDICTOR_PRESETS.prophet_w20_log1p).toEqual({ load_predictor: 'prophet', load_predictor_log1p: true, prophet_window_size: 20 });
    expect(LOAD_PREDICTOR_PRESETS.kalman_reactive_raw).toEqual({
      load_predictor: 'kalman',
      load_predictor_log1p: false,
      kalman_q_level: 10,
      kalman_q_trend: 1,
      kalman_r: 5,
      kalman_min_points: 3,
    });
  });
});

describe('resolveLoadPredictor', () => {
  it('resolves a preset id to a copy of its row', () => {
    const r = resolveLoadPredictor('kalman_default_log1p');
    expect(r.id).toBe('kalman_default_log1p');
    expect(r.spec).toEqual(LOAD_PREDICTOR_PRESETS.kalman_default_log1p);
    expect(r.spec).not.toBe(LOAD_PREDICTOR_PRESETS.kalman_default_log1p);
  });

  it('fills family defaults for a dict entry', () => {
    expect(resolveLoadPredictor({ load_predictor: 'prophet' }).spec).toEqual({
      load_predictor: 'prophet',
      load_predictor_log1p: false,
      prophet_window_size: 50,
    });
    const k = resolveLoadPredictor({ load_predictor: 'kalman', load_predictor_log1p: true, kalman_r: 2 });
    expect(k.spec).toEqual({
      load_predictor: 'kalman',
      load_predictor_log1p: true,
      kalman_q_level: 1,
      kalman_q_trend: 0.1,
      kalman_r: 2,
      kalman_min_points: 5,
    });
    expect(k.id).toBe('custom:kalman_log1p(q_level=1,q_trend=0.1,r=2,min_points=5)');
    expect(resolveLoadPredictor({ load_predictor: 'arima' }).id).toBe('custom:arima_raw');
  });

  it('gives equal dicts equal ids regardless of key order', () => {
    const a = resolveLoadPredictor({ load_predictor: 'prophet', prophet_window_size: 30, load_predictor_log1p: true });
    const b = resolveLoadPredictor({ load_predictor_log1p: true, prophet_window_size: 30, load_predictor: 'prophet' });
    expect(a).toEqual(b);
  });

  it('rejects unknown ids, missing family, unknown keys, cross-family keys and bad values', () => {
    expect(() => resolveLoadPredictor('kalman_fast')).toThrow(InputError);
    expect(() => resolveLoadPredictor('kalman_fast')).toThrow(/constant_last/);
    expect(() => resolveLoadPredictor({ load_predictor_log1p: true })).toThrow(/load_predictor/);
    expect(() => resolveLoadPredictor({ load_predictor: 'lstm' })).toThrow(InputError);
    expect(() => resolveLoadPredictor({ load_predictor: 'arima', arima_order: 2 })).toThrow(/arima_order/);
    expect(() => resolveLoadPredictor({ load_predictor: 'prophet', kalman_r: 3 })).toThrow(/kalman_r.*does not apply/);
    expect(() => resolveLoadPredictor({ load_predictor: 'kalman', kalman_r: 0 })).toThrow(InputError);
    expect(() => resolveLoadPredictor({ load_predictor: 'prophet', prophet_window_size: 2.5 })).toThrow(InputError);
  });
});
