// Composite presets expand exactly as the seed's tables; dicts replace presets; labels are stable.
import { describe, expect, it } from 'vitest';
import {
  compositeLabel,
  enablesAnyScaling,
  enablesThroughputScaling,
  expandFpmSampling,
  expandLoadPredictor,
  expandLoadSensitivity,
  expandScalingPolicy,
  LOAD_PREDICTOR_PRESET_IDS,
  SCALING_POLICY_PRESET_IDS,
} from '../../src/config/composites.js';

describe('planner_scaling_policy presets', () => {
  // preset: [throughput, load, throughput interval, load interval] — the seed's table.
  const TABLE: Record<string, [boolean, boolean, number | null, number | null]> = {
    disabled: [false, false, null, null],
    throughput_180_5: [true, false, 180, 5],
    throughput_600_5: [true, false, 600, 5],
    load_180_5: [false, true, 180, 5],
    load_180_10: [false, true, 180, 10],
    hybrid_180_5: [true, true, 180, 5],
    hybrid_600_5: [true, true, 600, 5],
  };
  it('has exactly the seed presets', () => expect([...SCALING_POLICY_PRESET_IDS].sort()).toEqual(Object.keys(TABLE).sort()));
  it.each(Object.entries(TABLE))('%s', (id, [t, l, ti, li]) => {
    expect(expandScalingPolicy(id as never)).toEqual({
      enable_throughput_scaling: t,
      enable_load_scaling: l,
      throughput_adjustment_interval_seconds: ti,
      load_adjustment_interval_seconds: li,
    });
    expect(enablesThroughputScaling(id as never)).toBe(t);
    expect(enablesAnyScaling(id as never)).toBe(t || l);
  });
  it('a dict replaces the preset (no merge)', () => {
    const d = { enable_throughput_scaling: true, enable_load_scaling: false, throughput_adjustment_interval_seconds: 240, load_adjustment_interval_seconds: 5 };
    expect(expandScalingPolicy(d)).toEqual(d);
    expect(enablesThroughputScaling(d)).toBe(true);
    expect(enablesAnyScaling({ ...d, enable_throughput_scaling: false })).toBe(false);
  });
});

describe('planner_fpm_sampling and planner_load_sensitivity presets', () => {
  it.each([
    ['small', 32, 4],
    ['default', 64, 16],
    ['large', 128, 16],
    ['fine', 128, 64],
  ])('fpm %s', (id, n, bucket) => expect(expandFpmSampling(id as never)).toEqual({ max_num_fpm_samples: n, fpm_sample_bucket_size: bucket }));
  it.each([
    ['aggressive', 70, 3],
    ['default', 80, 5],
    ['conservative', 90, 8],
  ])('load sensitivity %s', (id, s, m) => expect(expandLoadSensitivity(id as never)).toEqual({ load_scaling_down_sensitivity: s, load_min_observations: m }));
  it('dicts pass through', () => {
    expect(expandFpmSampling({ max_num_fpm_samples: 16, fpm_sample_bucket_size: 9 })).toEqual({ max_num_fpm_samples: 16, fpm_sample_bucket_size: 9 });
    expect(expandLoadSensitivity({ load_scaling_down_sensitivity: 50, load_min_observations: 2 })).toEqual({ load_scaling_down_sensitivity: 50, load_min_observations: 2 });
  });
});

describe('load predictor presets', () => {
  const kd = { kalman_q_level: 1.0, kalman_q_trend: 0.1, kalman_r: 10.0, kalman_min_points: 5 };
  const kr = { kalman_q_level: 10.0, kalman_q_trend: 1.0, kalman_r: 5.0, kalman_min_points: 3 };
  const TABLE: Record<string, object> = {
    constant_last: { load_predictor: 'constant', load_predictor_log1p: false },
    arima_raw: { load_predictor: 'arima', load_predictor_log1p: false },
    arima_log1p: { load_predictor: 'arima', load_predictor_log1p: true },
    prophet_w20_raw: { load_predictor: 'prophet', load_predictor_log1p: false, prophet_window_size: 20 },
    prophet_w20_log1p: { load_predictor: 'prophet', load_predictor_log1p: true, prophet_window_size: 20 },
    prophet_w50_raw: { load_predictor: 'prophet', load_predictor_log1p: false, prophet_window_size: 50 },
    prophet_w50_log1p: { load_predictor: 'prophet', load_predictor_log1p: true, prophet_window_size: 50 },
    kalman_default_raw: { load_predictor: 'kalman', load_predictor_log1p: false, ...kd },
    kalman_default_log1p: { load_predictor: 'kalman', load_predictor_log1p: true, ...kd },
    kalman_reactive_raw: { load_predictor: 'kalman', load_predictor_log1p: false, ...kr },
    kalman_reactive_log1p: { load_predictor: 'kalman', load_predictor_log1p: true, ...kr },
  };
  it('has exactly the 11 seed presets', () => expect([...LOAD_PREDICTOR_PRESET_IDS]).toEqual(Object.keys(TABLE)));
  it.each(Object.entries(TABLE))('%s', (id, spec) => expect(expandLoadPredictor(id as never)).toEqual(spec));
  it('a dict defaults its family fields', () => {
    expect(expandLoadPredictor({ load_predictor: 'prophet' })).toEqual({ load_predictor: 'prophet', load_predictor_log1p: false, prophet_window_size: 50 });
    expect(expandLoadPredictor({ load_predictor: 'kalman', kalman_r: 2, load_predictor_log1p: true })).toEqual({
      load_predictor: 'kalman',
      load_predictor_log1p: true,
      ...kd,
      kalman_r: 2,
    });
    expect(expandLoadPredictor({ load_predictor: 'arima' })).toEqual({ load_predictor: 'arima', load_predictor_log1p: false });
  });
});

describe('compositeLabel', () => {
  it('is the preset id for a preset', () => expect(compositeLabel('load_180_5')).toBe('load_180_5'));
  it('is compact JSON with sorted keys for a dict, independent of key order', () => {
    const a = compositeLabel({ load_min_observations: 4, load_scaling_down_sensitivity: 75 });
    const b = compositeLabel({ load_scaling_down_sensitivity: 75, load_min_observations: 4 });
    expect(a).toBe('{"load_min_observations":4,"load_scaling_down_sensitivity":75}');
    expect(b).toBe(a);
  });
});
