// The complete resolved deployment a candidate was replayed with (what `spica deploy` renders):
// the ReplaySpec's backend_deployment with every default filled, the router and planner settings
// resolved by the same functions the replay uses, and the values the replay derives where the spec
// leaves null (checkpoint quantization and KV dtype, the model's context, KV bytes per token, G2
// bandwidths). Derived from the compact candidate when the SweepResult is assembled, so the trials
// a workflow carries across continue-as-new stay small; only feasible rows carry it.
import { z } from 'zod';
import type { SmartSearchConfig } from '../config/schema.js';
import type { FlatCandidate } from '../config/candidate.js';
import { KV_CACHE_DTYPES, WEIGHT_QUANTS } from '../model/arch.js';
import { resolveModel } from '../model/catalog.js';
import { defaultKvCacheDtype } from '../model/kv-cache.js';
import { kvBytesPerToken } from '../model/memory.js';
import { plannerInactiveReason, plannerSettingsOf } from '../replay/planner/index.js';
import { DEFAULT_G2_BANDWIDTH_GBPS } from '../replay/resolve.js';
import { BackendDeploymentSchema, materializeReplaySpec, RouterSettingsSchema, routerSettingsOf, type ReplaySpec } from '../replay/spec.js';

const LoadPredictorRecordSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));

/** The planner as the replay resolved it (src/replay/planner/settings.ts); `active` false ⇒ the replay ran static. */
export const PlannerRecordSchema = z.strictObject({
  active: z.boolean(),
  /** Why a requested scaling loop did not run in the replay (null when active or none was asked for). */
  inactive_reason: z.string().nullable(),
  scaling_policy: z.string(),
  enable_throughput_scaling: z.boolean(),
  enable_load_scaling: z.boolean(),
  throughput_adjustment_interval: z.number().positive().nullable(),
  load_adjustment_interval: z.number().positive().nullable(),
  optimization_target: z.enum(['throughput', 'latency', 'sla']),
  max_num_fpm_samples: z.number().int(),
  fpm_sample_bucket_size: z.number().int(),
  load_scaling_down_sensitivity: z.number(),
  load_min_observations: z.number().int(),
  load_predictor: z.string(),
  load_predictor_spec: LoadPredictorRecordSchema,
  min_endpoint: z.number().int().positive(),
  max_gpu_budget: z.number().int().positive().nullable(),
  min_gpu_budget: z.number().int().nonnegative(),
  ttft_ms: z.number().positive(),
  itl_ms: z.number().positive(),
});
export type PlannerRecord = z.infer<typeof PlannerRecordSchema>;

export const DeploymentRecordSchema = z.strictObject({
  backend_deployment: BackendDeploymentSchema,
  /** Values the replay derived where backend_deployment leaves null. */
  resolved: z.strictObject({
    quantization: z.enum(WEIGHT_QUANTS),
    kv_cache_dtype: z.enum(KV_CACHE_DTYPES),
    context_length: z.number().int().positive(),
    kv_bytes_per_token: z.number().int().positive(),
    g2_d2h_gbps: z.number().positive(),
    g2_h2d_gbps: z.number().positive(),
    offload_batch_size: z.number().int().positive(),
  }),
  router: RouterSettingsSchema,
  planner: PlannerRecordSchema,
  seed: z.number().int().nonnegative(),
});
export type DeploymentRecord = z.infer<typeof DeploymentRecordSchema>;

function policyLabel(cfg: Record<string, unknown>): string {
  const p = cfg.planner_scaling_policy;
  if (p === undefined) return 'disabled';
  return typeof p === 'string' ? p : JSON.stringify(p);
}

/** Pure (catalog lookups only): the record of one ReplaySpec. */
export function deploymentRecordOf(spec: ReplaySpec): DeploymentRecord {
  const bd = spec.backend_deployment;
  const model = resolveModel(bd.model_name);
  const kvDtype = bd.kv_cache_dtype ?? defaultKvCacheDtype(model, bd.backend, bd.quantization ?? model.weightQuant);
  const off = bd.kv_offload;
  const plannerCfg = spec.adapters['dynamo.planner']?.config ?? {};
  const p = plannerSettingsOf(plannerCfg, spec.goal);
  const seconds = (ms: number) => (Number.isFinite(ms) ? ms / 1000 : null);
  return DeploymentRecordSchema.parse({
    backend_deployment: bd,
    resolved: {
      quantization: bd.quantization ?? model.weightQuant,
      kv_cache_dtype: kvDtype,
      context_length: bd.context_length ?? model.maxContext,
      kv_bytes_per_token: off.kv_bytes_per_token ?? kvBytesPerToken(model, kvDtype),
      g2_d2h_gbps: off.bandwidth_g1_to_g2_gbps ?? DEFAULT_G2_BANDWIDTH_GBPS,
      g2_h2d_gbps: off.bandwidth_g2_to_g1_gbps ?? DEFAULT_G2_BANDWIDTH_GBPS,
      offload_batch_size: off.offload_batch_size ?? 1,
    },
    router: routerSettingsOf(spec),
    planner: {
      active: plannerInactiveReason(p) === null,
      inactive_reason: p.requested.throughput || p.requested.load ? plannerInactiveReason(p) : null,
      scaling_policy: policyLabel(plannerCfg),
      enable_throughput_scaling: p.throughputScaling,
      enable_load_scaling: p.loadScaling,
      throughput_adjustment_interval: seconds(p.throughputIntervalMs),
      load_adjustment_interval: seconds(p.loadIntervalMs),
      optimization_target: p.optimizationTarget,
      max_num_fpm_samples: p.maxFpmSamples,
      fpm_sample_bucket_size: p.fpmBucketSize,
      load_scaling_down_sensitivity: p.downSensitivity,
      load_min_observations: p.minObservations,
      load_predictor: p.predictorLabel,
      load_predictor_spec: p.predictor,
      min_endpoint: p.minEndpoint,
      max_gpu_budget: Number.isFinite(p.maxGpuBudget) ? p.maxGpuBudget : null,
      min_gpu_budget: p.minGpuBudget,
      ttft_ms: p.ttftMs,
      itl_ms: p.itlMs,
    },
    seed: spec.seed,
  });
}

/** The ReplaySpec a sweep replays for a candidate (the evaluator's and the deployment record's one source). */
export function sweptReplaySpec(config: SmartSearchConfig, candidate: FlatCandidate, concurrency: number | null, traceSha256: string | null = null): ReplaySpec {
  const workload = candidate.kv_load_ratio !== undefined ? { ...config.workload, kv_load_ratio: candidate.kv_load_ratio } : config.workload;
  return materializeReplaySpec(candidate, {
    searchSpace: config.search_space,
    workload,
    goal: config.goal,
    concurrency,
    traceSha256,
    seed: config.sweep.seed,
  });
}
