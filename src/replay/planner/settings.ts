// The planner's settings, read from a ReplaySpec's `dynamo.planner` adapter config (what
// src/search/study/materialize.ts and materializeReplaySpec put there) plus the goal's SLA.
// Composite entries are expanded here when only the preset id reached the spec (e.g. `spica replay
// --candidate` with a hand-written planner dict). Value legality is Dynamo PlannerConfig's
// (dynamo-facts §5): positive intervals, perfect-square FPM bucket, sensitivity in 0–100.
import { z } from 'zod';
import {
  FpmSamplingDictSchema,
  FpmSamplingEntrySchema,
  LoadSensitivityDictSchema,
  LoadSensitivityEntrySchema,
  ScalingPolicyEntrySchema,
  expandFpmSampling,
  expandLoadSensitivity,
  expandScalingPolicy,
} from '../../config/composites.js';
import { InputError } from '../../errors.js';
import { LOAD_PREDICTOR_PRESETS, LoadPredictorSpecSchema, type LoadPredictorSpec } from '../../forecast/index.js';
import { plannerOptimizationTarget, type PlannerGoalView } from '../../config/scalingPolicyFilter.js';

/** Clarification B: load scaling under a goal without an SLA uses these bounds. */
export const DEFAULT_LOAD_SLA = { ttft_ms: 500, itl_ms: 50 } as const;

/** A composite may also arrive as its dict's label (sorted-key JSON, the optimizer's categorical value). */
function composite<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => {
    if (typeof v !== 'string' || !v.startsWith('{')) return v;
    try {
      return JSON.parse(v) as unknown;
    } catch {
      return v;
    }
  }, schema);
}

export const PlannerAdapterConfigSchema = z.looseObject({
  planner_scaling_policy: composite(ScalingPolicyEntrySchema).optional(),
  scaling_policy: z
    .looseObject({
      enable_throughput_scaling: z.boolean(),
      enable_load_scaling: z.boolean(),
      throughput_adjustment_interval_seconds: z.number().nullable(),
      load_adjustment_interval_seconds: z.number().nullable(),
    })
    .optional(),
  optimization_target: z.enum(['throughput', 'latency', 'sla']).optional(),
  planner_fpm_sampling: composite(FpmSamplingEntrySchema).optional(),
  fpm_sampling: FpmSamplingDictSchema.optional(),
  planner_load_sensitivity: composite(LoadSensitivityEntrySchema).optional(),
  load_sensitivity: LoadSensitivityDictSchema.optional(),
  load_predictor: z.string().optional(),
  load_predictor_spec: LoadPredictorSpecSchema.optional(),
  /** Replica floor per role (Clarification B; default 1). */
  min_endpoint: z.number().int().positive().nullable().optional(),
  /** GPU budget the planner may not exceed (the search space's gpu_budget). */
  max_gpu_budget: z.number().int().positive().nullable().optional(),
  min_gpu_budget: z.number().int().positive().nullable().optional(),
});
export type PlannerAdapterConfig = z.infer<typeof PlannerAdapterConfigSchema>;

export interface PlannerSettings {
  /** The loops the policy asks for (before the optimization-target rule). */
  requested: { throughput: boolean; load: boolean };
  /** Throughput scaling is effective only under optimization_target 'sla' with a TTFT+ITL SLA. */
  throughputScaling: boolean;
  loadScaling: boolean;
  throughputIntervalMs: number;
  loadIntervalMs: number;
  optimizationTarget: 'throughput' | 'latency' | 'sla';
  maxFpmSamples: number;
  fpmBucketSize: number;
  /** Scale down only when every engine is under SLA × this / 100. */
  downSensitivity: number;
  minObservations: number;
  predictor: LoadPredictorSpec;
  predictorLabel: string;
  minEndpoint: number;
  maxGpuBudget: number;
  minGpuBudget: number;
  ttftMs: number;
  itlMs: number;
}

export type PlannerGoal = PlannerGoalView;

function positive(name: string, v: number | null | undefined): number {
  if (v === null || v === undefined || !(v > 0) || !Number.isFinite(v))
    throw new InputError(`planner: ${name} must be a positive number of seconds (got ${v}); fix the planner_scaling_policy entry`);
  return v;
}

/** Resolves the adapter config; throws InputError naming the offending field. */
export function plannerSettingsOf(config: Record<string, unknown>, goal: PlannerGoal): PlannerSettings {
  const parsed = PlannerAdapterConfigSchema.safeParse(config);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`).join('; ');
    throw new InputError(`invalid dynamo.planner config: ${detail}`);
  }
  const c = parsed.data;
  const policy = c.scaling_policy ?? expandScalingPolicy(c.planner_scaling_policy ?? 'disabled');
  const target = c.optimization_target ?? plannerOptimizationTarget(goal);
  const sla = goal.sla ?? null;
  const hasTtftItl = sla !== null && sla.ttft_ms != null && sla.itl_ms != null;
  // Dynamo drops throughput policies unless the target maps to "sla" (they need an SLA to size for).
  const throughputScaling = policy.enable_throughput_scaling && target === 'sla' && hasTtftItl;
  const loadScaling = policy.enable_load_scaling;
  const fpm = c.fpm_sampling ?? expandFpmSampling(c.planner_fpm_sampling ?? 'default');
  const sens = c.load_sensitivity ?? expandLoadSensitivity(c.planner_load_sensitivity ?? 'default');
  const anyScaling = throughputScaling || loadScaling;
  if (anyScaling) {
    const root = Math.round(Math.sqrt(fpm.fpm_sample_bucket_size));
    if (!(fpm.max_num_fpm_samples >= 1)) throw new InputError(`planner: max_num_fpm_samples must be ≥ 1 (got ${fpm.max_num_fpm_samples})`);
    if (!(fpm.fpm_sample_bucket_size >= 1) || root * root !== fpm.fpm_sample_bucket_size)
      throw new InputError(`planner: fpm_sample_bucket_size must be a perfect square ≥ 1 (got ${fpm.fpm_sample_bucket_size})`);
    if (!(sens.load_scaling_down_sensitivity >= 0 && sens.load_scaling_down_sensitivity <= 100))
      throw new InputError(`planner: load_scaling_down_sensitivity must be in 0–100 (got ${sens.load_scaling_down_sensitivity})`);
    if (!(sens.load_min_observations >= 1)) throw new InputError(`planner: load_min_observations must be ≥ 1 (got ${sens.load_min_observations})`);
  }
  const throughputIntervalMs = throughputScaling ? positive('throughput_adjustment_interval_seconds', policy.throughput_adjustment_interval_seconds) * 1000 : Infinity;
  const loadIntervalMs = loadScaling ? positive('load_adjustment_interval_seconds', policy.load_adjustment_interval_seconds) * 1000 : Infinity;
  const maxGpu = c.max_gpu_budget ?? Infinity;
  const minGpu = c.min_gpu_budget ?? 0;
  if (minGpu > maxGpu) throw new InputError(`planner: min_gpu_budget (${minGpu}) exceeds max_gpu_budget (${maxGpu})`);
  return {
    requested: { throughput: policy.enable_throughput_scaling, load: policy.enable_load_scaling },
    throughputScaling,
    loadScaling,
    throughputIntervalMs,
    loadIntervalMs,
    optimizationTarget: target,
    maxFpmSamples: fpm.max_num_fpm_samples,
    fpmBucketSize: fpm.fpm_sample_bucket_size,
    downSensitivity: sens.load_scaling_down_sensitivity,
    minObservations: sens.load_min_observations,
    predictor: c.load_predictor_spec ?? { ...LOAD_PREDICTOR_PRESETS.constant_last },
    predictorLabel: c.load_predictor ?? 'constant_last',
    minEndpoint: Math.max(1, c.min_endpoint ?? 1),
    maxGpuBudget: maxGpu,
    minGpuBudget: minGpu,
    ttftMs: hasTtftItl ? sla!.ttft_ms! : DEFAULT_LOAD_SLA.ttft_ms,
    itlMs: hasTtftItl ? sla!.itl_ms! : DEFAULT_LOAD_SLA.itl_ms,
  };
}
