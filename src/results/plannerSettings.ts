// The planner a candidate ran with, read from its `dynamo.planner` adapter record and unrolled to
// the planner's own fields (dynamo-facts §5 presets and payload). Composite values may be a preset
// id, a dict, or the dict's label (sorted-key JSON) as the optimizer's categorical value carries it.
// null ⇒ no scaling loop (no policy recorded, or `disabled`): the deployment runs no Planner.
import { z } from 'zod';
import {
  expandFpmSampling,
  expandLoadPredictor,
  expandLoadSensitivity,
  expandScalingPolicy,
  FPM_SAMPLING_PRESET_IDS,
  FpmSamplingEntrySchema,
  LoadPredictorEntrySchema,
  LoadSensitivityEntrySchema,
  ScalingPolicyEntrySchema,
  type LoadPredictorSpec,
} from '../config/composites.js';
import { InputError } from '../errors.js';
import { plannerOptimizationTarget } from '../config/scalingPolicyFilter.js';
import type { GoalTargetName } from '../search/goal.js';
import type { CandidateRow, SweepResult } from '../search/sweepResult.js';
import { workerRolesOf } from './roles.js';

export const PlannerSettingsSchema = z.strictObject({
  scaling_policy: z.string(),
  enable_throughput_scaling: z.boolean(),
  enable_load_scaling: z.boolean(),
  throughput_adjustment_interval: z.number().positive().nullable(),
  load_adjustment_interval: z.number().positive().nullable(),
  max_num_fpm_samples: z.number().int().positive(),
  fpm_sample_bucket_size: z.number().int().positive(),
  load_scaling_down_sensitivity: z.number(),
  load_min_observations: z.number().int().positive(),
  /** Forecaster for throughput scaling (the sub-sweep winner); null when throughput scaling is off. */
  load_predictor: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).nullable(),
  optimization_target: z.enum(['throughput', 'latency', 'sla']),
  mode: z.enum(['agg', 'disagg']),
  backend: z.string(),
  max_gpu_budget: z.number().int().positive(),
  min_gpu_budget: z.number().int().positive().nullable(),
  min_endpoint: z.number().int().positive(),
  decode_engine_num_gpu: z.number().int().positive(),
  prefill_engine_num_gpu: z.number().int().positive().nullable(),
  ttft_ms: z.number().positive().nullable(),
  itl_ms: z.number().positive().nullable(),
});
export type PlannerSettings = z.infer<typeof PlannerSettingsSchema>;

/** Without an SLA, load scaling targets these (CLARIFICATIONS §B). */
const DEFAULT_LOAD_SLA = { ttft_ms: 500, itl_ms: 50 } as const;

/** A composite value: preset id, dict, or a dict's JSON label. */
function entry<T>(schema: z.ZodType<T>, value: unknown, what: string, id: string): T {
  let v = value;
  if (typeof v === 'string' && v.startsWith('{')) {
    try {
      v = JSON.parse(v);
    } catch {
      throw new InputError(`${id}: dynamo.planner ${what} '${value}' is neither a preset id nor valid JSON`);
    }
  }
  const parsed = schema.safeParse(v);
  if (!parsed.success) throw new InputError(`${id}: dynamo.planner ${what} ${JSON.stringify(value)} is not a known preset or a valid dict`);
  return parsed.data;
}

function label(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function positiveOrNull(v: unknown): number | null {
  return typeof v === 'number' && v > 0 ? v : null;
}

export function plannerSettingsOf(row: Pick<CandidateRow, 'id' | 'config'>, question: SweepResult['question']): PlannerSettings | null {
  const p = row.config.adapters['dynamo.planner'] ?? {};
  const policyRaw = p.scaling_policy ?? p.planner_scaling_policy;
  if (policyRaw === undefined || policyRaw === null) return null;
  const policy = expandScalingPolicy(entry(ScalingPolicyEntrySchema, policyRaw, 'scaling_policy', row.id));
  if (!policy.enable_throughput_scaling && !policy.enable_load_scaling) return null;

  const fpm = expandFpmSampling(entry(FpmSamplingEntrySchema, p.fpm_sampling ?? p.planner_fpm_sampling ?? FPM_SAMPLING_PRESET_IDS[1], 'fpm_sampling', row.id));
  const sens = expandLoadSensitivity(entry(LoadSensitivityEntrySchema, p.load_sensitivity ?? p.planner_load_sensitivity ?? 'default', 'load_sensitivity', row.id));

  // The forecaster: the recorded winner, else a single candidate; constant_last is the planner's fallback.
  let predictorRaw: unknown = p.load_predictor;
  if (predictorRaw === undefined && Array.isArray(p.load_predictor_candidates) && p.load_predictor_candidates.length === 1)
    predictorRaw = p.load_predictor_candidates[0];
  const predictor: LoadPredictorSpec | null = policy.enable_throughput_scaling
    ? expandLoadPredictor(entry(LoadPredictorEntrySchema, predictorRaw ?? 'constant_last', 'load_predictor', row.id))
    : null;

  const goal = question.goal as { target?: GoalTargetName; sla?: { ttft_ms?: number | null; itl_ms?: number | null } | null };
  const target = plannerOptimizationTarget({ target: goal.target ?? 'throughput' });
  const roles = workerRolesOf(row);
  const engineGpus = (role: 'agg' | 'prefill' | 'decode') => {
    const g = roles.find((r) => r.role === role)?.group;
    return g ? g.tp * g.attention_dp : null;
  };
  const wantsSla = target === 'sla' || policy.enable_load_scaling;
  const slaTtft = positiveOrNull(goal.sla?.ttft_ms);
  const slaItl = positiveOrNull(goal.sla?.itl_ms);
  const disagg = row.config.deployment_mode === 'disagg';

  const settings = {
    scaling_policy: label(policyRaw),
    enable_throughput_scaling: policy.enable_throughput_scaling,
    enable_load_scaling: policy.enable_load_scaling,
    throughput_adjustment_interval: policy.enable_throughput_scaling ? policy.throughput_adjustment_interval_seconds : null,
    load_adjustment_interval: policy.enable_load_scaling ? policy.load_adjustment_interval_seconds : null,
    ...fpm,
    ...sens,
    load_predictor: predictor as Record<string, string | number | boolean> | null,
    optimization_target: target,
    mode: row.config.deployment_mode,
    backend: row.config.backend,
    max_gpu_budget: question.gpu_budget,
    min_gpu_budget: positiveOrNull(p.min_gpu_budget),
    min_endpoint: positiveOrNull(p.min_endpoint) ?? 1,
    decode_engine_num_gpu: disagg ? engineGpus('decode') : engineGpus('agg'),
    prefill_engine_num_gpu: disagg ? engineGpus('prefill') : null,
    ttft_ms: wantsSla ? (slaTtft ?? (target === 'sla' ? null : DEFAULT_LOAD_SLA.ttft_ms)) : null,
    itl_ms: wantsSla ? (slaItl ?? (target === 'sla' ? null : DEFAULT_LOAD_SLA.itl_ms)) : null,
  };
  const parsed = PlannerSettingsSchema.safeParse(settings);
  if (!parsed.success)
    throw new InputError(`${row.id}: invalid dynamo.planner settings: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}
