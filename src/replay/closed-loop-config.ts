// The config a user writes to replay a closed-loop benchmark of one aggregated deployment: pinned
// model, SKU, backend, quantization and parallel shape, fixed isl / osl, the benchmark's concurrency,
// everything else what a default engine runs with. `spica estimate` replays it for its latencies, and
// the accuracy harness (src/calibration/rowConfig.ts) builds every measured agg row's config with it —
// so the estimate's figures are the calibrated user-path replay the accuracy figures describe. Pure.
//
// What a benchmark does not state, and what the config says instead:
// * engine token budget: the backend's default on that GPU — 8192 (vLLM V1 online serving, TRT-LLM's
//   max_num_tokens), SGLang's chunked_prefill_size 16384 above 160 GB of HBM (B200);
// * max_num_seqs: the smallest allowed value that is not binding at the benchmark's concurrency (the
//   benchmarks size the engine for it);
// * prefix caching off (benchmark prompts are random, nothing would hit); block size 64 and 0.9 memory
//   utilisation (the config defaults, Clarification C);
// * request count: num_request_ratio 10, the benchmarks' usual num_prompts = 10 × concurrency;
// * gpu_budget: the GPUs the deployment uses;
// * the client's re-issue latency and the output-length spread: the workload defaults;
// * the KV-cache dtype, unless stated: the engine's default for the checkpoint (defaultKvCacheDtype).
import { SEARCH_CHOICES } from '../config/choices.js';
import type { Backend } from '../model/arch.js';
import { usedGpus, type WorkerGroup } from '../parallel/shape.js';

/** Requests per unit of concurrency a closed-loop benchmark issues (num_prompts = 10 × concurrency). */
export const CLOSED_LOOP_REQUEST_RATIO = 10;

/** Per-pass token budget a backend runs with by default on a GPU of `memBytes` HBM. */
export function defaultTokenBudget(backend: Backend, memBytes: number): number {
  if (backend === 'sglang' && memBytes > 160e9) return 16384;
  return 8192;
}

/** Smallest allowed value ≥ want (the largest when none is). */
export function atLeast(choices: readonly number[], want: number): number {
  return choices.find((c) => c >= want) ?? choices[choices.length - 1];
}

/** What a closed-loop benchmark of one aggregated worker states (a measured row, or `spica estimate`'s flags). */
export interface ClosedLoopBenchmark {
  model: string;
  sku: string;
  backend: Backend;
  quant: string;
  /** Absent: the engine's default for the checkpoint (model/kv-cache.ts defaultKvCacheDtype), as when a config names none. */
  kvDtype?: string;
  group: WorkerGroup;
  isl: number;
  osl: number;
  concurrency: number;
}

/** The config document (as YAML would carry it); `memBytes` = the SKU's HBM per GPU. */
export function closedLoopConfig(b: ClosedLoopBenchmark, memBytes: number): Record<string, unknown> {
  const C = SEARCH_CHOICES;
  const budget = defaultTokenBudget(b.backend, memBytes);
  return {
    search_space: {
      model_name: b.model,
      hardware_sku: b.sku,
      gpu_budget: usedGpus(b.group),
      deployment_mode: ['agg'],
      backend: [b.backend],
      quantization: b.quant,
      ...(b.kvDtype !== undefined ? { kv_cache_dtype: b.kvDtype } : {}),
      parallel_configs: [b.group],
      agg_max_num_batched_tokens: [atLeast(C.agg_max_num_batched_tokens, budget)],
      agg_max_num_seqs: [atLeast(C.agg_max_num_seqs, Math.ceil(b.concurrency / b.group.attention_dp))],
      agg_enable_prefix_caching: false,
      router_mode: ['round_robin'],
      planner_scaling_policy: ['disabled'],
    },
    workload: { isl: b.isl, osl: b.osl, concurrency: b.concurrency, num_request_ratio: CLOSED_LOOP_REQUEST_RATIO },
    goal: { target: 'throughput' },
  };
}

