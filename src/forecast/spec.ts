// Load-predictor specs: the zod schema, the 11 presets of `load_predictor_candidates`, and the
// resolution of a config entry (preset id or dict) into a fully-defaulted spec.
// Preset table and family defaults follow the seed (search-space.md "Composite presets").
import { z } from 'zod';
import { InputError } from '../errors.js';

export const LOAD_PREDICTOR_FAMILIES = ['constant', 'arima', 'prophet', 'kalman'] as const;
export type LoadPredictorFamily = (typeof LOAD_PREDICTOR_FAMILIES)[number];

/** A fully-resolved forecaster spec; family fields are present for their family only. */
export const LoadPredictorSpecSchema = z.strictObject({
  load_predictor: z.enum(LOAD_PREDICTOR_FAMILIES),
  load_predictor_log1p: z.boolean(),
  // Prophet-style fit needs a handful of points for trend + changepoints.
  prophet_window_size: z.number().int().min(3).optional(),
  kalman_q_level: z.number().nonnegative().optional(),
  kalman_q_trend: z.number().nonnegative().optional(),
  kalman_r: z.number().positive().optional(),
  kalman_min_points: z.number().int().min(1).optional(),
});
export type LoadPredictorSpec = z.infer<typeof LoadPredictorSpecSchema>;

const PROPHET_KEYS = ['prophet_window_size'] as const;
const KALMAN_KEYS = ['kalman_q_level', 'kalman_q_trend', 'kalman_r', 'kalman_min_points'] as const;
const FAMILY_KEYS: Record<LoadPredictorFamily, readonly string[]> = {
  constant: [],
  arima: [],
  prophet: PROPHET_KEYS,
  kalman: KALMAN_KEYS,
};

/** A dict entry of `load_predictor_candidates`: only `load_predictor` is required. */
export const LoadPredictorEntrySchema = LoadPredictorSpecSchema.extend({
  load_predictor_log1p: z.boolean().optional(),
}).superRefine((entry, ctx) => {
  // A field of another family is almost certainly a typo'd family; reject rather than ignore it.
  const allowed = new Set(['load_predictor', 'load_predictor_log1p', ...FAMILY_KEYS[entry.load_predictor]]);
  for (const key of Object.keys(entry)) {
    if (!allowed.has(key)) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `'${key}' does not apply to load_predictor '${entry.load_predictor}'`,
      });
    }
  }
});
export type LoadPredictorEntry = z.infer<typeof LoadPredictorEntrySchema>;

/** Planner defaults for omitted family fields (`kalman` defaults = the `kalman_default_*` presets). */
export const LOAD_PREDICTOR_FAMILY_DEFAULTS = {
  prophet_window_size: 50,
  kalman_q_level: 1.0,
  kalman_q_trend: 0.1,
  kalman_r: 10.0,
  kalman_min_points: 5,
} as const;

const kalmanDefault = { kalman_q_level: 1.0, kalman_q_trend: 0.1, kalman_r: 10.0, kalman_min_points: 5 };
const kalmanReactive = { kalman_q_level: 10.0, kalman_q_trend: 1.0, kalman_r: 5.0, kalman_min_points: 3 };

/** The 11 preset ids, in the seed's default order. */
export const LOAD_PREDICTOR_PRESETS = {
  constant_last: { load_predictor: 'constant', load_predictor_log1p: false },
  arima_raw: { load_predictor: 'arima', load_predictor_log1p: false },
  arima_log1p: { load_predictor: 'arima', load_predictor_log1p: true },
  prophet_w20_raw: { load_predictor: 'prophet', load_predictor_log1p: false, prophet_window_size: 20 },
  prophet_w20_log1p: { load_predictor: 'prophet', load_predictor_log1p: true, prophet_window_size: 20 },
  prophet_w50_raw: { load_predictor: 'prophet', load_predictor_log1p: false, prophet_window_size: 50 },
  prophet_w50_log1p: { load_predictor: 'prophet', load_predictor_log1p: true, prophet_window_size: 50 },
  kalman_default_raw: { load_predictor: 'kalman', load_predictor_log1p: false, ...kalmanDefault },
  kalman_default_log1p: { load_predictor: 'kalman', load_predictor_log1p: true, ...kalmanDefault },
  kalman_reactive_raw: { load_predictor: 'kalman', load_predictor_log1p: false, ...kalmanReactive },
  kalman_reactive_log1p: { load_predictor: 'kalman', load_predictor_log1p: true, ...kalmanReactive },
} as const satisfies Record<string, LoadPredictorSpec>;

export type LoadPredictorPresetId = keyof typeof LOAD_PREDICTOR_PRESETS;
export const LOAD_PREDICTOR_PRESET_IDS = Object.keys(LOAD_PREDICTOR_PRESETS) as LoadPredictorPresetId[];
/** Default `load_predictor_candidates`: every preset. */
export const DEFAULT_LOAD_PREDICTOR_CANDIDATES: readonly LoadPredictorPresetId[] = LOAD_PREDICTOR_PRESET_IDS;

export function isLoadPredictorPresetId(id: string): id is LoadPredictorPresetId {
  return Object.prototype.hasOwnProperty.call(LOAD_PREDICTOR_PRESETS, id);
}

/**
 * Resolve one `load_predictor_candidates` entry. A preset id maps to its table row; a dict
 * replaces the preset expansion and takes the family defaults for omitted family fields.
 * Dict ids are derived from the resolved spec, so equal dicts get equal ids.
 */
export function resolveLoadPredictor(entry: string | object): { id: string; spec: LoadPredictorSpec } {
  if (typeof entry === 'string') {
    if (!isLoadPredictorPresetId(entry)) {
      throw new InputError(
        `unknown load_predictor_candidates preset '${entry}'; expected one of ${LOAD_PREDICTOR_PRESET_IDS.join(', ')} or a dict with 'load_predictor'`,
      );
    }
    return { id: entry, spec: { ...LOAD_PREDICTOR_PRESETS[entry] } };
  }
  const parsed = LoadPredictorEntrySchema.safeParse(entry);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(entry)'}: ${i.message}`)
      .join('; ');
    throw new InputError(`invalid load_predictor_candidates entry ${JSON.stringify(entry)}: ${detail}`);
  }
  const e = parsed.data;
  const d = LOAD_PREDICTOR_FAMILY_DEFAULTS;
  const spec: LoadPredictorSpec = { load_predictor: e.load_predictor, load_predictor_log1p: e.load_predictor_log1p ?? false };
  if (e.load_predictor === 'prophet') {
    spec.prophet_window_size = e.prophet_window_size ?? d.prophet_window_size;
  } else if (e.load_predictor === 'kalman') {
    spec.kalman_q_level = e.kalman_q_level ?? d.kalman_q_level;
    spec.kalman_q_trend = e.kalman_q_trend ?? d.kalman_q_trend;
    spec.kalman_r = e.kalman_r ?? d.kalman_r;
    spec.kalman_min_points = e.kalman_min_points ?? d.kalman_min_points;
  }
  return { id: customPredictorId(spec), spec };
}

/** e.g. `custom:kalman_log1p(q_level=2,q_trend=0.1,r=10,min_points=5)`; stable for equal specs. */
function customPredictorId(spec: LoadPredictorSpec): string {
  const scale = spec.load_predictor_log1p ? 'log1p' : 'raw';
  const params: string[] = [];
  if (spec.load_predictor === 'prophet') params.push(`window=${spec.prophet_window_size}`);
  if (spec.load_predictor === 'kalman') {
    params.push(
      `q_level=${spec.kalman_q_level}`,
      `q_trend=${spec.kalman_q_trend}`,
      `r=${spec.kalman_r}`,
      `min_points=${spec.kalman_min_points}`,
    );
  }
  return `custom:${spec.load_predictor}_${scale}${params.length > 0 ? `(${params.join(',')})` : ''}`;
}
