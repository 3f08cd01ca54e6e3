// Allowed values and defaults of every atomic list knob (seed "search-space.md", `SEARCH_CHOICES`).
// A list knob's entries must be a non-empty subset of its choices; one entry pins it, several search it.

export const SEARCH_CHOICES = {
  deployment_mode: ['disagg', 'agg'],
  backend: ['vllm', 'sglang', 'trtllm'],
  prefill_max_num_batched_tokens: [8192, 16384, 32768],
  prefill_max_num_seqs: [1, 2, 4, 8, 16, 32, 64, 128, 256],
  decode_max_num_batched_tokens: [8192],
  decode_max_num_seqs: [256, 512, 1024],
  agg_max_num_batched_tokens: [8192, 16384, 32768],
  agg_max_num_seqs: [256, 512, 1024],
  router_mode: ['kv_router', 'round_robin'],
  overlap_score_credit: [0.0, 0.5, 1.0],
  prefill_load_scale: [0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0],
  router_temperature: [0.0, 0.2, 0.5, 1.0],
  host_cache_hit_weight: [0.5, 0.75, 1.0],
  disk_cache_hit_weight: [0.0, 0.25, 0.5],
} as const;

export type ListKnob = keyof typeof SEARCH_CHOICES;
export type ListKnobValue<K extends ListKnob> = (typeof SEARCH_CHOICES)[K][number];

/** Defaults of the list knobs: all choices, except where the seed's default is a narrower list. */
export const LIST_KNOB_DEFAULTS: { [K in ListKnob]: readonly ListKnobValue<K>[] } = {
  deployment_mode: ['disagg', 'agg'],
  backend: ['vllm'],
  prefill_max_num_batched_tokens: SEARCH_CHOICES.prefill_max_num_batched_tokens,
  prefill_max_num_seqs: SEARCH_CHOICES.prefill_max_num_seqs,
  decode_max_num_batched_tokens: SEARCH_CHOICES.decode_max_num_batched_tokens,
  decode_max_num_seqs: SEARCH_CHOICES.decode_max_num_seqs,
  agg_max_num_batched_tokens: SEARCH_CHOICES.agg_max_num_batched_tokens,
  agg_max_num_seqs: SEARCH_CHOICES.agg_max_num_seqs,
  router_mode: ['kv_router', 'round_robin'],
  overlap_score_credit: SEARCH_CHOICES.overlap_score_credit,
  prefill_load_scale: SEARCH_CHOICES.prefill_load_scale,
  router_temperature: SEARCH_CHOICES.router_temperature,
  host_cache_hit_weight: SEARCH_CHOICES.host_cache_hit_weight,
  disk_cache_hit_weight: SEARCH_CHOICES.disk_cache_hit_weight,
};

/** Pinned-scalar defaults of the engine roles (the same for every backend, CLARIFICATIONS §C). */
export const ENGINE_SCALAR_DEFAULTS = {
  prefill_block_size: 64,
  prefill_gpu_memory_utilization: 0.9,
  prefill_enable_prefix_caching: true,
  decode_block_size: 64,
  decode_gpu_memory_utilization: 0.9,
  decode_enable_prefix_caching: false,
  agg_block_size: 64,
  agg_gpu_memory_utilization: 0.9,
  agg_enable_prefix_caching: true,
} as const;

/** Remaining pinned scalars of `search_space` with their defaults (null = unset). */
export const PINNED_SCALAR_DEFAULTS = {
  gpu_budget: 32,
  min_gpu_budget: null,
  min_endpoint: null,
  context_length: null,
  startup_time: null,
  aic_nextn: null,
  num_g2_blocks: 0,
  kv_bytes_per_token: null,
  bandwidth_g1_to_g2_gbps: null,
  bandwidth_g2_to_g1_gbps: null,
  offload_batch_size: null,
  active_decode_blocks_threshold: null,
  active_prefill_tokens_threshold: null,
  active_prefill_tokens_threshold_frac: null,
  no_admission_control: false,
} as const;

/** Admission-control pins: rejected when set (≠ default) in a search that includes kv_router. */
export const ADMISSION_CONTROL_FIELDS = [
  'active_decode_blocks_threshold',
  'active_prefill_tokens_threshold',
  'active_prefill_tokens_threshold_frac',
  'no_admission_control',
] as const;

/** Router knobs that only matter for KV-router trials. */
export const KV_ROUTER_KNOBS = [
  'overlap_score_credit',
  'prefill_load_scale',
  'router_temperature',
  'host_cache_hit_weight',
  'disk_cache_hit_weight',
] as const;

/** Router weights of host/disk extension blocks: dead unless multi-tier offload is on. */
export const OFFLOAD_WEIGHT_KNOBS = ['host_cache_hit_weight', 'disk_cache_hit_weight'] as const;

export type EngineRole = 'agg' | 'prefill' | 'decode';

/** Searched engine list knobs per role, in the order they become dimensions. */
export const ENGINE_LIST_KNOBS: Record<EngineRole, readonly ListKnob[]> = {
  agg: ['agg_max_num_batched_tokens', 'agg_max_num_seqs'],
  prefill: ['prefill_max_num_batched_tokens', 'prefill_max_num_seqs'],
  decode: ['decode_max_num_batched_tokens', 'decode_max_num_seqs'],
};

/** Pinned engine scalars per role. */
export const ENGINE_SCALAR_KNOBS: Record<EngineRole, readonly (keyof typeof ENGINE_SCALAR_DEFAULTS)[]> = {
  agg: ['agg_block_size', 'agg_gpu_memory_utilization', 'agg_enable_prefix_caching'],
  prefill: ['prefill_block_size', 'prefill_gpu_memory_utilization', 'prefill_enable_prefix_caching'],
  decode: ['decode_block_size', 'decode_gpu_memory_utilization', 'decode_enable_prefix_caching'],
};
