// ReplaySpec (api_version 1, dynamo-facts §4): everything one replay needs, as versioned JSON. The
// sweeper materializes one per candidate; its canonical JSON hash keys the result cache.
import { z } from 'zod';
import { FlatCandidateSchema, type FlatCandidate, type FlatCandidateInput } from '../config/candidate.js';
import { GoalSchema, ParallelConfigEntrySchema, WorkloadSchema, type Goal, type SearchSpace, type Workload } from '../config/schema.js';
import { InputError } from '../errors.js';
import { BACKENDS, KV_CACHE_DTYPES, WEIGHT_QUANTS } from '../model/arch.js';

export const REPLAY_SPEC_API_VERSION = 1;

export const EngineArgsSchema = z.strictObject({
  max_num_batched_tokens: z.number().int().positive(),
  max_num_seqs: z.number().int().positive(),
  block_size: z.number().int().positive(),
  gpu_memory_utilization: z.number().gt(0).lte(1),
  enable_prefix_caching: z.boolean(),
  /** Seconds before a worker added by the planner serves. */
  startup_time: z.number().nonnegative().nullable().default(null),
  /** MTP depth (aic_nextn). */
  nextn: z.number().int().nonnegative().nullable().default(null),
});
export type EngineArgs = z.infer<typeof EngineArgsSchema>;

export const KvOffloadSchema = z.strictObject({
  num_g2_blocks: z.number().int().nonnegative().default(0),
  kv_bytes_per_token: z.number().int().positive().nullable().default(null),
  bandwidth_g1_to_g2_gbps: z.number().positive().nullable().default(null),
  bandwidth_g2_to_g1_gbps: z.number().positive().nullable().default(null),
  offload_batch_size: z.number().int().positive().nullable().default(null),
});
export type KvOffload = z.infer<typeof KvOffloadSchema>;

export const BackendDeploymentSchema = z
  .strictObject({
    deployment_mode: z.enum(['agg', 'disagg']),
    backend: z.enum(BACKENDS),
    backend_version: z.string().nullable().default(null),
    model_name: z.string().min(1),
    hardware_sku: z.string().min(1),
    /** null ⇒ the checkpoint's own weight quantization / KV dtype. */
    quantization: z.enum(WEIGHT_QUANTS).nullable().default(null),
    kv_cache_dtype: z.enum(KV_CACHE_DTYPES).nullable().default(null),
    context_length: z.number().int().positive().nullable().default(null),
    parallel_config: ParallelConfigEntrySchema,
    agg_engine_args: EngineArgsSchema.optional(),
    prefill_engine_args: EngineArgsSchema.optional(),
    decode_engine_args: EngineArgsSchema.optional(),
    num_workers: z.number().int().positive().optional(),
    num_prefill_workers: z.number().int().positive().optional(),
    num_decode_workers: z.number().int().positive().optional(),
    kv_offload: KvOffloadSchema.prefault({}),
    /** Pins the P/D link (GB/s per sending worker); null ⇒ derived from the system (Clarification D). */
    pd_transfer_bandwidth_gbps: z.number().positive().nullable().default(null),
  })
  .superRefine((d, ctx) => {
    const disagg = 'prefill' in d.parallel_config;
    const need = (ok: boolean, path: string, message: string) => {
      if (!ok) ctx.addIssue({ code: 'custom', path: [path], message });
    };
    need(disagg === (d.deployment_mode === 'disagg'), 'parallel_config', `parallel_config does not fit deployment_mode '${d.deployment_mode}'`);
    if (d.deployment_mode === 'agg') {
      need(d.agg_engine_args !== undefined, 'agg_engine_args', 'agg deployments need agg_engine_args');
      need(d.num_workers !== undefined, 'num_workers', 'agg deployments need num_workers');
    } else {
      need(d.prefill_engine_args !== undefined, 'prefill_engine_args', 'disagg deployments need prefill_engine_args');
      need(d.decode_engine_args !== undefined, 'decode_engine_args', 'disagg deployments need decode_engine_args');
      need(d.num_prefill_workers !== undefined && d.num_decode_workers !== undefined, 'num_prefill_workers', 'disagg deployments need num_prefill_workers and num_decode_workers');
    }
    if (d.kv_offload.num_g2_blocks > 0) need(d.kv_offload.kv_bytes_per_token !== null, 'kv_offload', 'kv_bytes_per_token is required when num_g2_blocks > 0');
  });
export type BackendDeployment = z.infer<typeof BackendDeploymentSchema>;

export const RuntimeHookSchema = z.strictObject({
  provider: z.string(),
  kind: z.string(),
  api_version: z.number().int().positive(),
  config: z.record(z.string(), z.unknown()),
});
export const AdapterReplaySpecSchema = z.strictObject({
  config: z.record(z.string(), z.unknown()),
  runtime_hooks: z.array(RuntimeHookSchema).default(() => []),
});
export type AdapterReplaySpec = z.infer<typeof AdapterReplaySpecSchema>;

export const RouterSettingsSchema = z.strictObject({
  router_mode: z.enum(['kv_router', 'round_robin']).default('round_robin'),
  overlap_score_credit: z.number().min(0).default(1),
  prefill_load_scale: z.number().min(0).default(1),
  router_temperature: z.number().min(0).default(0),
  host_cache_hit_weight: z.number().min(0).default(0.75),
  disk_cache_hit_weight: z.number().min(0).default(0.25),
});
export type RouterSettings = z.infer<typeof RouterSettingsSchema>;

export const ReplaySpecSchema = z.strictObject({
  api_version: z.literal(REPLAY_SPEC_API_VERSION),
  backend_deployment: BackendDeploymentSchema,
  /** The config's workload block; a trace is referenced by absolute path, checked by trace_sha256. */
  workload: WorkloadSchema,
  trace_sha256: z.string().regex(/^[0-9a-f]{64}$/).nullable().default(null),
  goal: GoalSchema,
  /** Closed-loop concurrency derived for this candidate (kv_load_ratio), else null. */
  concurrency: z.number().int().positive().nullable(),
  adapters: z.record(z.string(), AdapterReplaySpecSchema).default(() => ({})),
  seed: z.number().int().nonnegative().max(0xffffffff).default(0),
});
export type ReplaySpec = z.infer<typeof ReplaySpecSchema>;
export type ReplaySpecInput = z.input<typeof ReplaySpecSchema>;

/** Validates (and fills defaults of) a ReplaySpec; errors name the offending path. */
export function parseReplaySpec(input: unknown): ReplaySpec {
  const r = ReplaySpecSchema.safeParse(input);
  if (!r.success) {
    const lines = r.error.issues.map((i) => `  ${i.path.join('.') || '(spec)'}: ${i.message}`);
    throw new InputError(`invalid ReplaySpec:\n${lines.join('\n')}`);
  }
  return r.data;
}

/** Router settings carried by the spec's `dynamo.router` adapter (round-robin when absent). */
export function routerSettingsOf(spec: ReplaySpec): RouterSettings {
  return RouterSettingsSchema.parse(spec.adapters['dynamo.router']?.config ?? {});
}

// ── materialization from the flat candidate form (Clarification D) ─────────────────────────────────

export { FlatCandidateSchema, type FlatCandidate, type FlatCandidateInput } from '../config/candidate.js';

export interface MaterializeContext {
  /** The config's search_space (pinned values and single-entry lists fill what the candidate leaves out). */
  searchSpace: SearchSpace;
  /** The config's workload with trace_path made absolute. */
  workload: Workload;
  goal: Goal;
  /** Derived closed-loop concurrency (kv_load_ratio workloads), else null. */
  concurrency: number | null;
  traceSha256: string | null;
  seed?: number;
}

const ROUTER_KNOBS = ['router_mode', 'overlap_score_credit', 'prefill_load_scale', 'router_temperature', 'host_cache_hit_weight', 'disk_cache_hit_weight'] as const;
const PLANNER_KNOBS = ['planner_scaling_policy', 'planner_fpm_sampling', 'planner_load_sensitivity', 'load_predictor_candidates'] as const;

/** A knob's value: the candidate's, else the search space's single value; several values left unchosen is an error. */
function pick(name: string, chosen: unknown, space: unknown): unknown {
  if (chosen !== undefined) return chosen;
  if (Array.isArray(space)) {
    if (space.length === 1) return space[0];
    throw new InputError(`the candidate does not choose '${name}' and the config searches it (${JSON.stringify(space)}): pass a value in --candidate`);
  }
  return space;
}

function engineArgs(role: 'agg' | 'prefill' | 'decode', c: FlatCandidate, s: SearchSpace): EngineArgs {
  const get = (knob: string) => pick(`${role}_${knob}`, c.engine[`${role}_${knob}`] ?? undefined, (s as Record<string, unknown>)[`${role}_${knob}`]);
  return EngineArgsSchema.parse({
    max_num_batched_tokens: get('max_num_batched_tokens'),
    max_num_seqs: get('max_num_seqs'),
    block_size: get('block_size'),
    gpu_memory_utilization: get('gpu_memory_utilization'),
    enable_prefix_caching: get('enable_prefix_caching'),
    startup_time: s.startup_time,
    nextn: s.aic_nextn,
  });
}

/** Pure: flat candidate + context → ReplaySpec (validated, defaults filled). */
export function materializeReplaySpec(candidateInput: FlatCandidateInput, ctx: MaterializeContext): ReplaySpec {
  const parsed = FlatCandidateSchema.safeParse(candidateInput);
  if (!parsed.success) throw new InputError(`invalid candidate: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const c = parsed.data;
  const s = ctx.searchSpace;
  const pc = c.parallel_config;
  const disagg = c.deployment_mode === 'disagg';
  const routerIn = c.adapters['dynamo.router'] ?? {};
  const router: Record<string, unknown> = {};
  for (const k of ROUTER_KNOBS) {
    // Host/disk weights only act on G2/G3 overlap: with offload off they are dead dimensions.
    const dead = (k === 'host_cache_hit_weight' || k === 'disk_cache_hit_weight') && s.num_g2_blocks === 0;
    if (dead && routerIn[k] === undefined) continue;
    const alias = k === 'router_mode' ? routerIn.mode : k === 'router_temperature' ? routerIn.temperature : undefined;
    router[k] = pick(k, routerIn[k] ?? alias, (s as Record<string, unknown>)[k]);
    if (k === 'router_mode' && router[k] === 'round_robin') break; // the KV weights are dead dimensions then
  }
  const routerCfg = RouterSettingsSchema.parse(router);
  const plannerIn = c.adapters['dynamo.planner'] ?? {};
  const planner: Record<string, unknown> = {};
  for (const k of PLANNER_KNOBS) {
    const v = plannerIn[k] ?? (Array.isArray(s[k]) && s[k].length === 1 ? s[k][0] : undefined);
    if (v !== undefined) planner[k] = v;
  }
  for (const [k, v] of Object.entries(plannerIn)) if (!(k in planner)) planner[k] = v;
  if (s.min_endpoint !== null) planner.min_endpoint = s.min_endpoint;
  // The planner never scales past the sweep's GPU budget (nor below min_gpu_budget): dynamo-facts §5.
  if (planner.max_gpu_budget === undefined) planner.max_gpu_budget = s.gpu_budget;
  if (s.min_gpu_budget !== null && planner.min_gpu_budget === undefined) planner.min_gpu_budget = s.min_gpu_budget;
  const spec = {
    api_version: REPLAY_SPEC_API_VERSION,
    backend_deployment: {
      deployment_mode: c.deployment_mode,
      backend: c.backend,
      model_name: s.model_name,
      hardware_sku: s.hardware_sku,
      quantization: s.quantization ?? null,
      kv_cache_dtype: s.kv_cache_dtype ?? null,
      context_length: s.context_length,
      parallel_config: pc,
      ...(disagg
        ? {
            prefill_engine_args: engineArgs('prefill', c, s),
            decode_engine_args: engineArgs('decode', c, s),
            num_prefill_workers: 'prefill' in pc ? pc.prefill.replicas : 1,
            num_decode_workers: 'prefill' in pc ? pc.decode.replicas : 1,
          }
        : { agg_engine_args: engineArgs('agg', c, s), num_workers: 'prefill' in pc ? 1 : pc.replicas }),
      kv_offload: {
        num_g2_blocks: s.num_g2_blocks,
        kv_bytes_per_token: s.kv_bytes_per_token,
        bandwidth_g1_to_g2_gbps: s.bandwidth_g1_to_g2_gbps,
        bandwidth_g2_to_g1_gbps: s.bandwidth_g2_to_g1_gbps,
        offload_batch_size: s.offload_batch_size,
      },
    },
    workload: ctx.workload,
    trace_sha256: ctx.traceSha256,
    goal: ctx.goal,
    concurrency: ctx.concurrency,
    adapters: {
      'dynamo.router': {
        config: routerCfg,
        runtime_hooks: [
          {
            provider: 'dynamo.router',
            kind: 'placement_policy',
            api_version: 1,
            config: {
              router_mode: routerCfg.router_mode,
              router_config: {
                overlap_score_credit: routerCfg.overlap_score_credit,
                prefill_load_scale: routerCfg.prefill_load_scale,
                router_temperature: routerCfg.router_temperature,
              },
            },
          },
        ],
      },
      'dynamo.planner': {
        config: planner,
        runtime_hooks: [{ provider: 'dynamo.planner', kind: 'scaling_policy', api_version: 1, config: { planner_config: planner } }],
      },
    },
    seed: ctx.seed ?? 0,
  };
  return parseReplaySpec(spec);
}
