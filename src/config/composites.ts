// Composite knobs: planner scaling policy, FPM sampling, load sensitivity, load predictors.
// Each list entry is a preset id or a self-contained dict; a dict replaces the preset expansion
// (no merge). Preset tables are the seed's ("Composite presets"); value legality (perfect-square
// bucket, positive intervals …) is the planner's business downstream, not the loader's.
import { z } from 'zod';
import { canonicalJson } from './canonical-json.js';
import {
  LOAD_PREDICTOR_FAMILIES,
  LOAD_PREDICTOR_FAMILY_DEFAULTS,
  LOAD_PREDICTOR_PRESET_IDS as FORECAST_PRESET_IDS,
  LOAD_PREDICTOR_PRESETS as FORECAST_PRESETS,
  type LoadPredictorFamily,
  type LoadPredictorPresetId,
} from '../forecast/spec.js';

// ── planner_scaling_policy ──────────────────────────────────────────────────────────────────────

export const SCALING_POLICY_PRESET_IDS = [
  'disabled',
  'throughput_180_5',
  'throughput_600_5',
  'load_180_5',
  'load_180_10',
  'hybrid_180_5',
  'hybrid_600_5',
] as const;
export type ScalingPolicyPresetId = (typeof SCALING_POLICY_PRESET_IDS)[number];

export const ScalingPolicyDictSchema = z.strictObject({
  enable_throughput_scaling: z.boolean(),
  enable_load_scaling: z.boolean(),
  throughput_adjustment_interval_seconds: z.number(),
  load_adjustment_interval_seconds: z.number(),
});
export type ScalingPolicyDict = z.infer<typeof ScalingPolicyDictSchema>;
export const ScalingPolicyEntrySchema = z.union([z.enum(SCALING_POLICY_PRESET_IDS), ScalingPolicyDictSchema]);
export type ScalingPolicyEntry = z.infer<typeof ScalingPolicyEntrySchema>;

/** The unrolled planner fields; intervals are null for the `disabled` preset (the seed's "—"). */
export interface ScalingPolicy {
  enable_throughput_scaling: boolean;
  enable_load_scaling: boolean;
  throughput_adjustment_interval_seconds: number | null;
  load_adjustment_interval_seconds: number | null;
}

function policy(tput: boolean, load: boolean, tputS: number | null, loadS: number | null): ScalingPolicy {
  return {
    enable_throughput_scaling: tput,
    enable_load_scaling: load,
    throughput_adjustment_interval_seconds: tputS,
    load_adjustment_interval_seconds: loadS,
  };
}

export const SCALING_POLICY_PRESETS: Readonly<Record<ScalingPolicyPresetId, ScalingPolicy>> = {
  disabled: policy(false, false, null, null),
  throughput_180_5: policy(true, false, 180, 5),
  throughput_600_5: policy(true, false, 600, 5),
  load_180_5: policy(false, true, 180, 5),
  load_180_10: policy(false, true, 180, 10),
  hybrid_180_5: policy(true, true, 180, 5),
  hybrid_600_5: policy(true, true, 600, 5),
};

export function expandScalingPolicy(entry: ScalingPolicyEntry): ScalingPolicy {
  return typeof entry === 'string' ? { ...SCALING_POLICY_PRESETS[entry] } : { ...entry };
}

/** Predictive throughput scaling on (needs an SLA-mapped goal). */
export function enablesThroughputScaling(entry: ScalingPolicyEntry): boolean {
  return expandScalingPolicy(entry).enable_throughput_scaling;
}

/** Any scaling loop on; both flags false means a static replica count, same as `disabled`. */
export function enablesAnyScaling(entry: ScalingPolicyEntry): boolean {
  const p = expandScalingPolicy(entry);
  return p.enable_throughput_scaling || p.enable_load_scaling;
}

// ── planner_fpm_sampling ────────────────────────────────────────────────────────────────────────

export const FPM_SAMPLING_PRESET_IDS = ['small', 'default', 'large', 'fine'] as const;
export type FpmSamplingPresetId = (typeof FPM_SAMPLING_PRESET_IDS)[number];
export const FpmSamplingDictSchema = z.strictObject({
  max_num_fpm_samples: z.number().int(),
  fpm_sample_bucket_size: z.number().int(),
});
export type FpmSampling = z.infer<typeof FpmSamplingDictSchema>;
export const FpmSamplingEntrySchema = z.union([z.enum(FPM_SAMPLING_PRESET_IDS), FpmSamplingDictSchema]);
export type FpmSamplingEntry = z.infer<typeof FpmSamplingEntrySchema>;

export const FPM_SAMPLING_PRESETS: Readonly<Record<FpmSamplingPresetId, FpmSampling>> = {
  small: { max_num_fpm_samples: 32, fpm_sample_bucket_size: 4 },
  default: { max_num_fpm_samples: 64, fpm_sample_bucket_size: 16 },
  large: { max_num_fpm_samples: 128, fpm_sample_bucket_size: 16 },
  fine: { max_num_fpm_samples: 128, fpm_sample_bucket_size: 64 },
};

export function expandFpmSampling(entry: FpmSamplingEntry): FpmSampling {
  return typeof entry === 'string' ? { ...FPM_SAMPLING_PRESETS[entry] } : { ...entry };
}

// ── planner_load_sensitivity ────────────────────────────────────────────────────────────────────

export const LOAD_SENSITIVITY_PRESET_IDS = ['aggressive', 'default', 'conservative'] as const;
export type LoadSensitivityPresetId = (typeof LOAD_SENSITIVITY_PRESET_IDS)[number];
export const LoadSensitivityDictSchema = z.strictObject({
  load_scaling_down_sensitivity: z.number(),
  load_min_observations: z.number().int(),
});
export type LoadSensitivity = z.infer<typeof LoadSensitivityDictSchema>;
export const LoadSensitivityEntrySchema = z.union([z.enum(LOAD_SENSITIVITY_PRESET_IDS), LoadSensitivityDictSchema]);
export type LoadSensitivityEntry = z.infer<typeof LoadSensitivityEntrySchema>;

export const LOAD_SENSITIVITY_PRESETS: Readonly<Record<LoadSensitivityPresetId, LoadSensitivity>> = {
  aggressive: { load_scaling_down_sensitivity: 70, load_min_observations: 3 },
  default: { load_scaling_down_sensitivity: 80, load_min_observations: 5 },
  conservative: { load_scaling_down_sensitivity: 90, load_min_observations: 8 },
};

export function expandLoadSensitivity(entry: LoadSensitivityEntry): LoadSensitivity {
  return typeof entry === 'string' ? { ...LOAD_SENSITIVITY_PRESETS[entry] } : { ...entry };
}

// ── load_predictor_candidates ───────────────────────────────────────────────────────────────────

// The families, the 11 presets and the family defaults have one home: src/forecast/spec.ts.
export { LOAD_PREDICTOR_FAMILIES };
export type { LoadPredictorFamily, LoadPredictorPresetId };
export const LOAD_PREDICTOR_PRESET_IDS = FORECAST_PRESET_IDS as unknown as readonly [LoadPredictorPresetId, ...LoadPredictorPresetId[]];

const PROPHET_FIELDS = ['prophet_window_size'] as const;
const KALMAN_FIELDS = ['kalman_q_level', 'kalman_q_trend', 'kalman_r', 'kalman_min_points'] as const;

/** A custom predictor: only the family is required; family fields default to the planner's. */
export const LoadPredictorDictSchema = z
  .strictObject({
    load_predictor: z.enum(LOAD_PREDICTOR_FAMILIES),
    load_predictor_log1p: z.boolean().optional(),
    prophet_window_size: z.number().int().optional(),
    kalman_q_level: z.number().optional(),
    kalman_q_trend: z.number().optional(),
    kalman_r: z.number().optional(),
    kalman_min_points: z.number().int().optional(),
  })
  .superRefine((d, ctx) => {
    // A field of another family would be silently ignored; say so instead.
    const foreign = [
      ...(d.load_predictor === 'prophet' ? [] : PROPHET_FIELDS),
      ...(d.load_predictor === 'kalman' ? [] : KALMAN_FIELDS),
    ].filter((k) => d[k] !== undefined);
    for (const k of foreign) {
      const family = (PROPHET_FIELDS as readonly string[]).includes(k) ? 'prophet' : 'kalman';
      ctx.addIssue({
        code: 'custom',
        path: [k],
        message: `'${k}' only applies to load_predictor '${family}', not '${d.load_predictor}'`,
        params: { allowed: `load_predictor_log1p${d.load_predictor === 'prophet' ? ', prophet_window_size' : d.load_predictor === 'kalman' ? `, ${KALMAN_FIELDS.join(', ')}` : ''}` },
      });
    }
  });
export type LoadPredictorDict = z.infer<typeof LoadPredictorDictSchema>;
export const LoadPredictorEntrySchema = z.union([z.enum(LOAD_PREDICTOR_PRESET_IDS), LoadPredictorDictSchema]);
export type LoadPredictorEntry = z.infer<typeof LoadPredictorEntrySchema>;

/** A fully expanded forecaster: the family plus every field that family reads. */
export type LoadPredictorSpec =
  | { load_predictor: 'constant' | 'arima'; load_predictor_log1p: boolean }
  | { load_predictor: 'prophet'; load_predictor_log1p: boolean; prophet_window_size: number }
  | {
      load_predictor: 'kalman';
      load_predictor_log1p: boolean;
      kalman_q_level: number;
      kalman_q_trend: number;
      kalman_r: number;
      kalman_min_points: number;
    };

export const PROPHET_DEFAULT_WINDOW = LOAD_PREDICTOR_FAMILY_DEFAULTS.prophet_window_size;
export const KALMAN_DEFAULT = {
  kalman_q_level: LOAD_PREDICTOR_FAMILY_DEFAULTS.kalman_q_level,
  kalman_q_trend: LOAD_PREDICTOR_FAMILY_DEFAULTS.kalman_q_trend,
  kalman_r: LOAD_PREDICTOR_FAMILY_DEFAULTS.kalman_r,
  kalman_min_points: LOAD_PREDICTOR_FAMILY_DEFAULTS.kalman_min_points,
} as const;

export const LOAD_PREDICTOR_PRESETS: Readonly<Record<LoadPredictorPresetId, LoadPredictorSpec>> = FORECAST_PRESETS;

export function expandLoadPredictor(entry: LoadPredictorEntry): LoadPredictorSpec {
  if (typeof entry === 'string') return { ...LOAD_PREDICTOR_PRESETS[entry] };
  const log1p = entry.load_predictor_log1p ?? false;
  switch (entry.load_predictor) {
    case 'constant':
    case 'arima':
      return { load_predictor: entry.load_predictor, load_predictor_log1p: log1p };
    case 'prophet':
      return {
        load_predictor: 'prophet',
        load_predictor_log1p: log1p,
        prophet_window_size: entry.prophet_window_size ?? PROPHET_DEFAULT_WINDOW,
      };
    case 'kalman':
      return {
        load_predictor: 'kalman',
        load_predictor_log1p: log1p,
        kalman_q_level: entry.kalman_q_level ?? KALMAN_DEFAULT.kalman_q_level,
        kalman_q_trend: entry.kalman_q_trend ?? KALMAN_DEFAULT.kalman_q_trend,
        kalman_r: entry.kalman_r ?? KALMAN_DEFAULT.kalman_r,
        kalman_min_points: entry.kalman_min_points ?? KALMAN_DEFAULT.kalman_min_points,
      };
  }
}

// ── labels ──────────────────────────────────────────────────────────────────────────────────────

/** A composite entry's categorical value: the preset id, or compact sorted-key JSON of a dict. */
export function compositeLabel(entry: string | Record<string, unknown>): string {
  return typeof entry === 'string' ? entry : canonicalJson(entry);
}
