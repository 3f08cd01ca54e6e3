// SmartSearchConfig: the zod schema is the single source of truth for the YAML's shape, its
// defaults and its rules (seed "search-space.md", dynamo-facts §1–§3, CLARIFICATIONS §B).
// Field names are the YAML names. Cross-field rules run as separate checks guarded by `when`, so
// one broken field does not hide the other problems: the loader reports every issue at once.
import { z } from 'zod';
import { KV_CACHE_DTYPES, WEIGHT_QUANTS } from '../model/arch.js';
import {
  ADMISSION_CONTROL_FIELDS,
  ENGINE_SCALAR_DEFAULTS,
  LIST_KNOB_DEFAULTS,
  PINNED_SCALAR_DEFAULTS,
  SEARCH_CHOICES,
} from './choices.js';
import {
  compositeLabel,
  FPM_SAMPLING_PRESET_IDS,
  FpmSamplingEntrySchema,
  LOAD_PREDICTOR_PRESET_IDS,
  LOAD_SENSITIVITY_PRESET_IDS,
  LoadPredictorEntrySchema,
  LoadSensitivityEntrySchema,
  SCALING_POLICY_PRESET_IDS,
  ScalingPolicyEntrySchema,
} from './composites.js';
import { filterScalingPolicies, plannerOptimizationTarget } from './scalingPolicyFilter.js';

// ── building blocks ─────────────────────────────────────────────────────────────────────────────

type Path = readonly PropertyKey[];
interface Payload {
  value: unknown;
  issues: readonly { path?: PropertyKey[] }[];
}

/** `when` guard: run a rule only on an object whose fields at `paths` parsed cleanly. */
function cleanAt(...paths: Path[]): (payload: Payload) => boolean {
  return (payload) =>
    payload.value !== null &&
    typeof payload.value === 'object' &&
    !payload.issues.some((i) => {
      const p = i.path ?? [];
      // Overlap either way: an issue at a parent (e.g. the whole block missing) or inside the field.
      return paths.some((q) => q.slice(0, p.length).every((k, j) => p[j] === k));
    });
}

const posInt = () => z.number().int().positive();

function noDuplicates(list: readonly unknown[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  list.forEach((v, i) => {
    const key = typeof v === 'object' && v !== null ? compositeLabel(v as Record<string, unknown>) : JSON.stringify(v);
    if (seen.has(key)) ctx.addIssue({ code: 'custom', path: [i], message: 'duplicate entry', params: { allowed: 'each value at most once' } });
    seen.add(key);
  });
}

/** Atomic list knob of strings: a non-empty, duplicate-free subset of its choices. */
function stringList<const T extends readonly [string, ...string[]]>(choices: T, defaults: readonly T[number][]) {
  return z
    .array(z.enum(choices))
    .min(1)
    .superRefine(noDuplicates)
    .default(() => [...defaults]);
}

/** Atomic list knob of numbers (literal choices, so `0.3` is rejected rather than rounded). */
function numberList<const T extends readonly [number, ...number[]]>(choices: T, defaults: readonly T[number][]) {
  return z
    .array(z.literal(choices))
    .min(1)
    .superRefine(noDuplicates)
    .default(() => [...defaults]);
}

/** Composite knob: preset ids and/or dicts, non-empty, no duplicates; default = every preset. */
function compositeList<S extends z.ZodType>(entry: S, presetIds: readonly z.output<S>[]) {
  return z
    .array(entry)
    .min(1)
    .superRefine(noDuplicates)
    .default(() => [...presetIds]);
}

const nullablePosInt = () => posInt().nullable().default(null);
const nullablePosNumber = () => z.number().positive().nullable().default(null);

// ── parallel_configs ────────────────────────────────────────────────────────────────────────────

/** One role's shape + replicas; omitted dims default to 1 (dense models can write just `{tp: N}`). */
// Key order is the one every shape is built in (ParallelShape, the result schema): a candidate parsed
// here (the Temporal report re-hydrates through it) serialises byte for byte as one that was not.
export const WorkerGroupSchema = z.strictObject({
  tp: posInt(),
  pp: posInt().default(1),
  attention_dp: posInt().default(1),
  moe_tp: posInt().default(1),
  moe_ep: posInt().default(1),
  replicas: posInt().default(1),
});
export const DisaggParallelEntrySchema = z.strictObject({ prefill: WorkerGroupSchema, decode: WorkerGroupSchema });
/** GPUs a pinned parallel_configs entry occupies (omitted dims are 1). */
export function pinnedGpus(e: ParallelConfigEntry): number {
  const g = (w: { tp: number; pp?: number; attention_dp?: number; replicas?: number }): number => w.tp * (w.pp ?? 1) * (w.attention_dp ?? 1) * (w.replicas ?? 1);
  return 'prefill' in e ? g(e.prefill) + g(e.decode) : g(e);
}

export const ParallelConfigEntrySchema = z.union([DisaggParallelEntrySchema, WorkerGroupSchema]);
export type ParallelConfigEntry = z.infer<typeof ParallelConfigEntrySchema>;

// ── search_space ────────────────────────────────────────────────────────────────────────────────

const C = SEARCH_CHOICES;
const D = LIST_KNOB_DEFAULTS;
const E = ENGINE_SCALAR_DEFAULTS;
const P = PINNED_SCALAR_DEFAULTS;

export const SearchSpaceSchema = z
  .strictObject({
    // Deployment
    deployment_mode: stringList(C.deployment_mode, D.deployment_mode),
    backend: stringList(C.backend, D.backend),
    model_name: z.string().min(1),
    hardware_sku: z.string().min(1),
    gpu_budget: posInt().default(P.gpu_budget),
    min_gpu_budget: nullablePosInt(),
    min_endpoint: nullablePosInt(),
    context_length: nullablePosInt(),
    startup_time: z.number().nonnegative().nullable().default(null),
    // MTP depth; the seed's 1..5 is a hint, deliberately not range-validated.
    aic_nextn: z.number().int().nullable().default(null),
    // Beyond the seed (CLARIFICATIONS §B): absent ⇒ the model's own checkpoint dtype.
    quantization: z.enum(WEIGHT_QUANTS).optional(),
    kv_cache_dtype: z.enum(KV_CACHE_DTYPES).optional(),
    parallel_configs: z.array(ParallelConfigEntrySchema).default(() => []),
    // Prefill engine
    prefill_max_num_batched_tokens: numberList(C.prefill_max_num_batched_tokens, D.prefill_max_num_batched_tokens),
    prefill_max_num_seqs: numberList(C.prefill_max_num_seqs, D.prefill_max_num_seqs),
    prefill_block_size: posInt().default(E.prefill_block_size),
    prefill_gpu_memory_utilization: z.number().gt(0).lte(1).default(E.prefill_gpu_memory_utilization),
    prefill_enable_prefix_caching: z.boolean().default(E.prefill_enable_prefix_caching),
    // Decode engine
    decode_max_num_batched_tokens: numberList(C.decode_max_num_batched_tokens, D.decode_max_num_batched_tokens),
    decode_max_num_seqs: numberList(C.decode_max_num_seqs, D.decode_max_num_seqs),
    decode_block_size: posInt().default(E.decode_block_size),
    decode_gpu_memory_utilization: z.number().gt(0).lte(1).default(E.decode_gpu_memory_utilization),
    // The seed forces prefix caching off for decode workers.
    decode_enable_prefix_caching: z.literal(false).default(E.decode_enable_prefix_caching),
    // Agg engine
    agg_max_num_batched_tokens: numberList(C.agg_max_num_batched_tokens, D.agg_max_num_batched_tokens),
    agg_max_num_seqs: numberList(C.agg_max_num_seqs, D.agg_max_num_seqs),
    agg_block_size: posInt().default(E.agg_block_size),
    agg_gpu_memory_utilization: z.number().gt(0).lte(1).default(E.agg_gpu_memory_utilization),
    agg_enable_prefix_caching: z.boolean().default(E.agg_enable_prefix_caching),
    // KV manager (multi-tier offload, off by default)
    num_g2_blocks: z.number().int().nonnegative().default(P.num_g2_blocks),
    kv_bytes_per_token: nullablePosInt(),
    bandwidth_g1_to_g2_gbps: nullablePosNumber(),
    bandwidth_g2_to_g1_gbps: nullablePosNumber(),
    offload_batch_size: nullablePosInt(),
    // Router
    router_mode: stringList(C.router_mode, D.router_mode),
    overlap_score_credit: numberList(C.overlap_score_credit, D.overlap_score_credit),
    prefill_load_scale: numberList(C.prefill_load_scale, D.prefill_load_scale),
    router_temperature: numberList(C.router_temperature, D.router_temperature),
    host_cache_hit_weight: numberList(C.host_cache_hit_weight, D.host_cache_hit_weight),
    disk_cache_hit_weight: numberList(C.disk_cache_hit_weight, D.disk_cache_hit_weight),
    // Admission control (pinned; rejected when set under kv_router)
    active_decode_blocks_threshold: z.number().int().nonnegative().nullable().default(null),
    active_prefill_tokens_threshold: z.number().int().nonnegative().nullable().default(null),
    active_prefill_tokens_threshold_frac: z.number().nonnegative().nullable().default(null),
    no_admission_control: z.boolean().default(P.no_admission_control),
    // Planner composites and load predictors
    planner_scaling_policy: compositeList(ScalingPolicyEntrySchema, SCALING_POLICY_PRESET_IDS),
    planner_fpm_sampling: compositeList(FpmSamplingEntrySchema, FPM_SAMPLING_PRESET_IDS),
    planner_load_sensitivity: compositeList(LoadSensitivityEntrySchema, LOAD_SENSITIVITY_PRESET_IDS),
    load_predictor_candidates: compositeList(LoadPredictorEntrySchema, LOAD_PREDICTOR_PRESET_IDS),
  })
  .superRefine(
    (s, ctx) => {
      if (s.min_gpu_budget !== null && s.min_gpu_budget > s.gpu_budget)
        ctx.addIssue({
          code: 'custom',
          path: ['min_gpu_budget'],
          message: `min_gpu_budget must not exceed gpu_budget (${s.gpu_budget})`,
          params: { allowed: `an integer in [1, ${s.gpu_budget}]` },
        });
    },
    { when: cleanAt(['min_gpu_budget'], ['gpu_budget']) },
  )
  .superRefine(
    (s, ctx) => {
      if (s.parallel_configs.length === 0) return;
      if (s.deployment_mode.length !== 1) {
        ctx.addIssue({
          code: 'custom',
          path: ['deployment_mode'],
          message: 'pinning parallel_configs requires deployment_mode to list exactly one mode',
          params: { allowed: '[agg] or [disagg]' },
        });
        return;
      }
      const mode = s.deployment_mode[0];
      s.parallel_configs.forEach((entry, i) => {
        const disagg = 'prefill' in entry;
        if (disagg !== (mode === 'disagg'))
          ctx.addIssue({
            code: 'custom',
            path: ['parallel_configs', i],
            message: `a ${disagg ? 'disagg {prefill, decode}' : 'flat agg'} entry does not fit deployment_mode [${mode}]`,
            params: {
              allowed: mode === 'disagg' ? '{prefill: {tp, …}, decode: {tp, …}}' : '{tp, attention_dp?, moe_tp?, moe_ep?, pp?, replicas?}',
            },
          });
        // A pin is a deployment to replay as written: one beyond the budget is refused, never replayed.
        else {
          const used = pinnedGpus(entry);
          if (used > s.gpu_budget)
            ctx.addIssue({
              code: 'custom',
              path: ['parallel_configs', i],
              message: `this pinned deployment uses ${used} GPUs, more than gpu_budget ${s.gpu_budget}`,
              params: { allowed: `a shape of at most ${s.gpu_budget} GPUs (tp × pp × attention_dp × replicas, summed over roles), or a larger gpu_budget` },
            });
        }
      });
    },
    { when: cleanAt(['parallel_configs'], ['deployment_mode'], ['gpu_budget']) },
  )
  .superRefine(
    (s, ctx) => {
      // Without the byte size replay could silently disable offload for private models.
      if (s.num_g2_blocks > 0 && s.kv_bytes_per_token === null)
        ctx.addIssue({
          code: 'custom',
          path: ['kv_bytes_per_token'],
          message: `kv_bytes_per_token is required when num_g2_blocks > 0 (num_g2_blocks is ${s.num_g2_blocks})`,
          params: { allowed: 'a positive integer (bytes of KV per token, all layers)' },
        });
    },
    { when: cleanAt(['num_g2_blocks'], ['kv_bytes_per_token']) },
  )
  .superRefine(
    (s, ctx) => {
      if (!s.router_mode.includes('kv_router')) return;
      for (const field of ADMISSION_CONTROL_FIELDS) {
        if (s[field] !== PINNED_SCALAR_DEFAULTS[field])
          ctx.addIssue({
            code: 'custom',
            path: [field],
            message: `admission control is not supported by replay when router_mode includes kv_router; leave ${field} at its default`,
            params: { allowed: `${JSON.stringify(PINNED_SCALAR_DEFAULTS[field])} (or router_mode: [round_robin])` },
          });
      }
    },
    { when: cleanAt(['router_mode'], ...ADMISSION_CONTROL_FIELDS.map((f) => [f])) },
  );
export type SearchSpace = z.infer<typeof SearchSpaceSchema>;

// ── workload ────────────────────────────────────────────────────────────────────────────────────

export const KvLoadRatioRangeSchema = z
  .tuple([z.number().min(0).max(1), z.number().gt(0).max(1)])
  .superRefine(([lo, hi], ctx) => {
    if (lo > hi)
      ctx.addIssue({ code: 'custom', path: [], message: 'range minimum exceeds maximum', params: { allowed: '[min, max] with 0 <= min <= max <= 1' } });
  });
export const KvLoadRatioSchema = z.union([z.number().gt(0).max(1), KvLoadRatioRangeSchema]);

const SYNTHETIC_FIELDS = ['isl', 'osl', 'num_request_ratio', 'request_rate', 'concurrency', 'kv_load_ratio'] as const;
export const LOAD_FIELDS = ['request_rate', 'concurrency', 'kv_load_ratio'] as const;
/** Synthetic-generator knobs with defaults: under a trace they are errors only when changed. */
const SYNTHETIC_DEFAULTED = {
  random_range_ratio: 1.0,
  shared_prefix_ratio: 0.0,
  num_prefix_groups: 0,
  turns_per_session: 1,
  inter_turn_delay_ms: 0.0,
  // The benchmark client's output-length spread (why: src/replay/workload/synthetic.ts).
  output_len_spread: 0.1,
} as const;

/** Default `client_reissue_ms`: see src/replay/workload/client.ts. */
export const CLIENT_REISSUE_MS = 1;

export const WorkloadSchema = z
  .strictObject({
    // trace: open-loop on its timestamps (or closed-loop with replay_concurrency)
    trace_path: z.string().min(1).optional(),
    trace_format: z.enum(['mooncake']).default('mooncake'),
    trace_block_size: posInt().default(512),
    arrival_speedup_ratio: z.number().positive().default(1.0),
    replay_concurrency: posInt().optional(),
    // synthetic
    isl: posInt().optional(),
    osl: posInt().optional(),
    num_request_ratio: z.number().positive().optional(),
    request_rate: z.number().positive().optional(),
    concurrency: posInt().optional(),
    kv_load_ratio: KvLoadRatioSchema.optional(),
    random_range_ratio: z.number().gt(0).max(1).default(SYNTHETIC_DEFAULTED.random_range_ratio),
    random_seed: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).default(0),
    shared_prefix_ratio: z.number().min(0).lt(1).default(SYNTHETIC_DEFAULTED.shared_prefix_ratio),
    num_prefix_groups: z.number().int().nonnegative().default(SYNTHETIC_DEFAULTED.num_prefix_groups),
    turns_per_session: posInt().default(SYNTHETIC_DEFAULTED.turns_per_session),
    inter_turn_delay_ms: z.number().nonnegative().default(SYNTHETIC_DEFAULTED.inter_turn_delay_ms),
    // Closed loops: the benchmark client's mean time from a completion to its next request's send
    // (exponential, seeded by random_seed): README "Calibration and accuracy", desynchronisation.
    client_reissue_ms: z.number().nonnegative().max(60_000).default(CLIENT_REISSUE_MS),
    // Each request's output length uniform in [osl·(1 − s), osl·(1 + s)] (mean osl, seeded).
    output_len_spread: z.number().min(0).lt(1).default(SYNTHETIC_DEFAULTED.output_len_spread),
  })
  .superRefine(
    (w, ctx) => {
      // Runs even when some fields failed (to report everything at once): presence is all it reads
      // of those, and invalid fields keep their raw value in the payload.
      const invalid = (f: string) => ctx.issues.some((i) => i.path?.[0] === f);
      if (w.trace_path !== undefined) {
        for (const f of SYNTHETIC_FIELDS)
          if (w[f] !== undefined)
            ctx.addIssue({
              code: 'custom',
              path: [f],
              message: `'${f}' is a synthetic-workload field and cannot be combined with trace_path`,
              params: { allowed: 'remove it, or remove trace_path' },
            });
        for (const [f, def] of Object.entries(SYNTHETIC_DEFAULTED))
          if (!invalid(f) && w[f as keyof typeof SYNTHETIC_DEFAULTED] !== def)
            ctx.addIssue({
              code: 'custom',
              path: [f],
              message: `'${f}' only shapes synthetic workloads and cannot be changed with trace_path`,
              params: { allowed: `${def} (the default)` },
            });
        return;
      }
      const given = SYNTHETIC_FIELDS.filter((f) => w[f] !== undefined);
      if (given.length === 0) {
        ctx.addIssue({
          code: 'custom',
          path: [],
          message: 'workload needs a shape: trace_path, or synthetic isl + osl + num_request_ratio with one load field',
          params: { allowed: 'trace_path | {isl, osl, num_request_ratio, request_rate | concurrency | kv_load_ratio}' },
        });
        return;
      }
      for (const f of ['isl', 'osl', 'num_request_ratio'] as const)
        if (w[f] === undefined)
          ctx.addIssue({
            code: 'custom',
            path: [f],
            message: `synthetic workloads require '${f}'`,
            params: { allowed: f === 'num_request_ratio' ? 'a number > 0' : 'a positive integer (tokens)' },
          });
      const loads = LOAD_FIELDS.filter((f) => w[f] !== undefined);
      for (const f of loads.slice(1))
        ctx.addIssue({
          code: 'custom',
          path: [f],
          message: `a synthetic workload takes exactly one load field, but ${loads.join(' and ')} are set`,
          params: { allowed: 'one of request_rate, concurrency, kv_load_ratio' },
        });
      if (w.replay_concurrency !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['replay_concurrency'],
          message: 'replay_concurrency only applies to trace workloads',
          params: { allowed: 'use concurrency for a synthetic closed-loop workload' },
        });
    },
    { when: cleanAt(['trace_path']) },
  );
export type Workload = z.infer<typeof WorkloadSchema>;
export type WorkloadShape = 'trace' | 'request_rate' | 'concurrency' | 'kv_load_ratio';

/** Which of the four workload shapes a validated workload is. */
export function workloadShape(w: Workload): WorkloadShape {
  if (w.trace_path !== undefined) return 'trace';
  if (w.request_rate !== undefined) return 'request_rate';
  if (w.concurrency !== undefined) return 'concurrency';
  return 'kv_load_ratio';
}

// ── goal ────────────────────────────────────────────────────────────────────────────────────────

export const GOAL_TARGETS = [
  'throughput',
  'throughput_per_gpu',
  'throughput_per_user',
  'e2e_latency',
  'goodput',
  'goodput_per_gpu',
  'pareto',
] as const;
export const GoalTargetSchema = z.enum(GOAL_TARGETS);
export type GoalTarget = z.infer<typeof GoalTargetSchema>;
export const PARETO_OBJECTIVES = GOAL_TARGETS.filter((t) => t !== 'pareto') as [Exclude<GoalTarget, 'pareto'>, ...Exclude<GoalTarget, 'pareto'>[]];
export const DEFAULT_PARETO_OBJECTIVES = ['throughput_per_gpu', 'throughput_per_user'] as const;
const SLA_TARGETS: readonly GoalTarget[] = ['goodput', 'goodput_per_gpu'];

export const SlaTargetSchema = z
  .strictObject({
    ttft_ms: z.number().positive().optional(),
    itl_ms: z.number().positive().optional(),
    e2e_ms: z.number().positive().optional(),
  })
  .superRefine((s, ctx) => {
    const forms = 'ttft_ms + itl_ms, and/or e2e_ms (each > 0)';
    if (s.ttft_ms === undefined && s.itl_ms === undefined && s.e2e_ms === undefined)
      ctx.addIssue({ code: 'custom', path: [], message: 'an SLA needs at least one bound', params: { allowed: forms } });
    else if ((s.ttft_ms === undefined) !== (s.itl_ms === undefined)) {
      const missing = s.ttft_ms === undefined ? 'ttft_ms' : 'itl_ms';
      ctx.addIssue({ code: 'custom', path: [missing], message: `ttft_ms and itl_ms go together: '${missing}' is missing`, params: { allowed: forms } });
    }
  });
export type SlaTarget = z.infer<typeof SlaTargetSchema>;

export const GoalSchema = z
  .strictObject({
    target: GoalTargetSchema.default('throughput'),
    sla: SlaTargetSchema.optional(),
    strict_sla: z.boolean().default(false),
    pareto_objectives: z.array(z.enum(PARETO_OBJECTIVES)).min(2).superRefine(noDuplicates).optional(),
  })
  .superRefine(
    (g, ctx) => {
      // The default list is exempt so a parsed config (which always carries it) re-validates.
      const isDefault = g.pareto_objectives?.join() === DEFAULT_PARETO_OBJECTIVES.join();
      if (g.pareto_objectives !== undefined && g.target !== 'pareto' && !isDefault)
        ctx.addIssue({
          code: 'custom',
          path: ['pareto_objectives'],
          message: `pareto_objectives only applies to target 'pareto' (target is '${g.target}')`,
          params: { allowed: "remove it, or set target: pareto" },
        });
      const objectives = g.target === 'pareto' ? (g.pareto_objectives ?? DEFAULT_PARETO_OBJECTIVES) : [g.target];
      const needing = objectives.filter((o) => SLA_TARGETS.includes(o));
      if (needing.length > 0 && g.sla === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['sla'],
          message: `an SLA is required for ${needing.join(', ')}`,
          params: { allowed: '{ttft_ms, itl_ms} and/or {e2e_ms}' },
        });
    },
    { when: cleanAt(['target'], ['sla'], ['pareto_objectives']) },
  )
  .transform((g) => ({ ...g, pareto_objectives: g.pareto_objectives ?? [...DEFAULT_PARETO_OBJECTIVES] }));
export type Goal = z.infer<typeof GoalSchema>;

// ── sweep ───────────────────────────────────────────────────────────────────────────────────────

export const SweepSettingsSchema = z
  .strictObject({
    max_rounds: posInt().default(20),
    parallel_evals: posInt().default(16),
    candidates_per_round: posInt().optional(),
    max_eval_seconds: z.number().positive().nullable().default(600),
    seed: z.number().int().min(0).max(0xffffffff).default(0),
    policy: z.enum(['rapid', 'thorough']).default('rapid'),
    algorithm: z.enum(['bayesian', 'random']).default('bayesian'),
  })
  .transform((s) => ({ ...s, candidates_per_round: s.candidates_per_round ?? s.parallel_evals }));
export type SweepSettings = z.infer<typeof SweepSettingsSchema>;

// ── adapters ────────────────────────────────────────────────────────────────────────────────────

/** Third-party providers installed in this build (the built-in router/planner are flat knobs). */
export const INSTALLED_PROVIDERS: readonly string[] = [];

export const AdaptersSchema = z
  .record(z.string(), z.unknown())
  .superRefine((a, ctx) => {
    for (const name of Object.keys(a))
      if (!INSTALLED_PROVIDERS.includes(name))
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `unknown provider '${name}' (installed providers: ${INSTALLED_PROVIDERS.length ? INSTALLED_PROVIDERS.join(', ') : 'none'})`,
          params: {
            allowed: 'no adapters; the dynamo router/planner knobs go flat under search_space',
          },
        });
  })
  .nullable()
  .optional()
  .transform((a) => a ?? {});

// ── SmartSearchConfig ───────────────────────────────────────────────────────────────────────────

export const SmartSearchConfigSchema = z
  .strictObject({
    search_space: SearchSpaceSchema,
    workload: WorkloadSchema,
    // `goal:` / `sweep:` left empty in YAML (null) mean "all defaults", like an absent block.
    goal: z.preprocess((v) => v ?? undefined, GoalSchema.prefault({})),
    sweep: z.preprocess((v) => v ?? undefined, SweepSettingsSchema.prefault({})),
    adapters: AdaptersSchema,
  })
  .superRefine(
    (c, ctx) => {
      const policies = c.search_space.planner_scaling_policy;
      const { kept, dropped } = filterScalingPolicies(policies, c.goal);
      if (kept.length > 0 || dropped.length === 0) return;
      const target = plannerOptimizationTarget(c.goal);
      ctx.addIssue({
        code: 'custom',
        path: ['search_space', 'planner_scaling_policy'],
        message:
          target === 'sla'
            ? `goal '${c.goal.target}' has an e2e-only SLA, which cannot seed the planner: every listed policy scales, so nothing is left to search`
            : `goal '${c.goal.target}' has no SLA (planner target '${target}'), so every throughput-scaling policy is dropped and nothing is left to search`,
        params: {
          allowed:
            target === 'sla'
              ? "a static policy such as 'disabled' (or add ttft_ms + itl_ms to the SLA)"
              : "'disabled', 'load_180_5', 'load_180_10' or a dict with enable_throughput_scaling: false (or a goodput goal)",
        },
      });
    },
    { when: cleanAt(['search_space', 'planner_scaling_policy'], ['goal']) },
  )
  .superRefine(
    (c, ctx) => {
      const w = c.workload;
      if (w.trace_path !== undefined) return;
      const range = Array.isArray(w.kv_load_ratio);
      if (range && c.goal.target !== 'pareto')
        ctx.addIssue({
          code: 'custom',
          path: ['workload', 'kv_load_ratio'],
          message: `a kv_load_ratio range is only allowed under a pareto goal (target is '${c.goal.target}')`,
          params: { allowed: 'a single number in (0, 1], or goal.target: pareto' },
        });
      // [0, 1] is also what a synthetic pareto without a load field becomes: exempt, so a parsed
      // config re-validates (the JSON a workflow receives).
      const declared = range && !((w.kv_load_ratio as number[])[0] === 0 && (w.kv_load_ratio as number[])[1] === 1);
      if (declared && c.sweep.policy === 'thorough')
        ctx.addIssue({
          code: 'custom',
          path: ['workload', 'kv_load_ratio'],
          message: 'sweep.policy thorough enumerates every value and rejects continuous ranges',
          params: { allowed: 'a single kv_load_ratio, or sweep.policy: rapid' },
        });
      const hasSyntheticShape = w.isl !== undefined || w.osl !== undefined || w.num_request_ratio !== undefined;
      const loads = LOAD_FIELDS.filter((f) => w[f] !== undefined);
      if (hasSyntheticShape && loads.length === 0 && c.goal.target !== 'pareto')
        ctx.addIssue({
          code: 'custom',
          path: ['workload'],
          message: 'a synthetic workload needs exactly one load field (only a pareto goal defaults to kv_load_ratio [0.0, 1.0])',
          params: { allowed: 'one of request_rate, concurrency, kv_load_ratio' },
        });
    },
    { when: cleanAt(['workload'], ['goal'], ['sweep']) },
  )
  // Synthetic pareto without a load field sweeps the whole KV-load range.
  .transform((c) => {
    const w = c.workload;
    if (c.goal.target !== 'pareto' || w.trace_path !== undefined) return c;
    if (LOAD_FIELDS.some((f) => w[f] !== undefined)) return c;
    return { ...c, workload: { ...w, kv_load_ratio: [0.0, 1.0] as [number, number] } };
  });
export type SmartSearchConfig = z.infer<typeof SmartSearchConfigSchema>;
