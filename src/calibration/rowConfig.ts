// A measured e2e row → the SmartSearchConfig a user would write to replay that benchmark: the row's
// model, SKU, backend, quantization, deployed parallel shape (pinned), isl / osl and the benchmark's
// concurrency (Clarification F), everything else at what the user would write for a default engine.
// The harness loads it through the normal config loader and replays it as `spica replay` does
// (evaluate.ts), so there is no harness-only setting. Pure.
//
// Agg rows are the closed-loop benchmark config of replay/closed-loop-config.ts (the one `spica
// estimate` replays). What the row does not record, and what the config says instead:
// * engine token budget: the backend's default on that GPU — 8192 (vLLM V1 online serving, TRT-LLM's
//   max_num_tokens), SGLang's chunked_prefill_size 16384 above 160 GB of HBM (B200) — and for disagg
//   prefill workers the smallest allowed budget that takes their prompt batch in one pass;
// * max_num_seqs: the smallest allowed value that is not binding at the benchmark's concurrency (the
//   benchmarks size the engine for it); disagg prefill ranks hold their prompt batch;
// * prefix caching off (benchmark prompts are random, nothing would hit); block size 64 and 0.9 memory
//   utilisation (the config defaults, Clarification C);
// * request count: num_request_ratio 10, the benchmarks' usual num_prompts = 10 × concurrency (the row
//   does not record it; 4 gave agg TTFT 26.0 % vs 21.6 % in-sample, first order: the start-up wave weighs
//   more than in the measured runs);
// * gpu_budget: the GPUs the row's deployment uses (a user sizes the budget to the deployment pinned);
// * KV-cache dtype: none (rows do not record it), so the engine's default for the checkpoint applies
//   (model/kv-cache.ts defaultKvCacheDtype: TRT-LLM inherits ModelOpt checkpoints' FP8 KV cache);
// * the client's re-issue latency and the lengths: the workload defaults (fixed lengths), as for
//   every user.
import { SEARCH_CHOICES } from '../config/choices.js';
import { atLeast, CLOSED_LOOP_REQUEST_RATIO, closedLoopConfig, defaultTokenBudget } from '../replay/closed-loop-config.js';
import { usedGpus, type ParallelConfig, type WorkerGroup } from '../parallel/shape.js';
import type { E2eRow, RowGroup } from './rows.js';


/** Requests per unit of concurrency the row configs issue (num_prompts = 10 × concurrency). */
export const ROW_REQUEST_RATIO = CLOSED_LOOP_REQUEST_RATIO;

function group(g: RowGroup): WorkerGroup {
  return { tp: g.tp, pp: g.pp, attention_dp: g.attention_dp, moe_tp: g.moe_tp, moe_ep: g.moe_ep, replicas: g.replicas };
}

export function rowParallelConfig(row: E2eRow): ParallelConfig {
  return row.mode === 'agg' ? group(row.group) : { prefill: group(row.prefill), decode: group(row.decode) };
}

/** The config document (as YAML would carry it) for one row; `memBytes` = the SKU's HBM per GPU. */
export function rowConfig(row: E2eRow, memBytes: number): Record<string, unknown> {
  if (row.mode === 'agg')
    return closedLoopConfig({ model: row.model.id, sku: row.sku, backend: row.backend, quant: row.quant, group: group(row.group), isl: row.isl, osl: row.osl, concurrency: row.concurrency }, memBytes);
  const C = SEARCH_CHOICES;
  const budget = defaultTokenBudget(row.backend, memBytes);
  const parallel = rowParallelConfig(row);
  const engine = {
    prefill_max_num_batched_tokens: [atLeast(C.prefill_max_num_batched_tokens, Math.max(budget, row.isl * row.prefillBatch))],
    prefill_max_num_seqs: [atLeast(C.prefill_max_num_seqs, row.prefillBatch)],
    prefill_enable_prefix_caching: false,
    decode_max_num_batched_tokens: [atLeast(C.decode_max_num_batched_tokens, budget)],
    decode_max_num_seqs: [atLeast(C.decode_max_num_seqs, Math.max(row.decodeBatch, Math.ceil(row.concurrency / (row.decode.replicas * row.decode.attention_dp))))],
  };
  return {
    search_space: {
      model_name: row.model.id,
      hardware_sku: row.sku,
      gpu_budget: usedGpus(parallel),
      deployment_mode: [row.mode],
      backend: [row.backend],
      quantization: row.quant,
      parallel_configs: [parallel],
      ...engine,
      router_mode: ['round_robin'],
      planner_scaling_policy: ['disabled'],
    },
    workload: { isl: row.isl, osl: row.osl, concurrency: row.concurrency, num_request_ratio: ROW_REQUEST_RATIO },
    goal: { target: 'throughput' },
  };
}
