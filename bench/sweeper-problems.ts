// The sweeper benchmark's problems: real sweep configs whose every candidate is replayed once (the
// exact optimum by enumeration) and memoised on disk (bench/sweeper-memo.ts).
//
// The first three are small (2.5k–4k candidates, every optimum near the fewest-GPU corner, no
// infeasible region). The "harder" three look like real sweeps (issue "Optimizer: ahead of GP-based
// samplers"): an SLA-infeasible region, an optimum away from the corners, agg and disagg together,
// a trace with router and planner knobs. Their workload sizes were chosen so that each enumerates in
// about 15 minutes of CPU on the shared 2-core box (one replay: MoE ~35 ms, 70B ~30 ms, trace
// ~90 ms warm): 96 / 128 requests (num_request_ratio 1) and the 400-request example Mooncake trace
// at 2× arrival speed, FPM sampling pinned.

export interface BenchProblem {
  name: string;
  yaml: string;
  /** Relative trace paths in `yaml` resolve against this directory (repository-relative). */
  baseDir?: string;
  /** Single-objective problems read trials to 99 %; pareto ones the hypervolume share. */
  kind: 'single' | 'pareto';
  /** Counted among the "harder problems" (target: ≤ ⅓ of measured random's trials to 99 %). */
  harder?: boolean;
}

const MOE_8 = `
search_space:
  model_name: Qwen/Qwen3-30B-A3B
  hardware_sku: h200_sxm
  gpu_budget: 8
  deployment_mode: [disagg]
  backend: [vllm, sglang]
  prefill_max_num_batched_tokens: [8192, 16384]
  prefill_max_num_seqs: [4, 16]
  decode_max_num_seqs: [256, 1024]
  router_mode: [round_robin]
  planner_scaling_policy: [disabled]
workload: {isl: 1024, osl: 128, concurrency: 32, num_request_ratio: 2}
`;

export const BENCH_PROBLEMS: BenchProblem[] = [
  {
    name: 'dense agg (Llama-3.1-8B, H100, 16 GPUs)',
    kind: 'single',
    yaml: `
search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  gpu_budget: 16
  deployment_mode: [agg]
  backend: [vllm, sglang, trtllm]
  agg_max_num_batched_tokens: [8192, 16384, 32768]
  agg_max_num_seqs: [256, 512, 1024]
  router_mode: [kv_router, round_robin]
  overlap_score_credit: [0.0, 1.0]
  prefill_load_scale: [0.5, 2.0]
  router_temperature: [0.0]
  planner_scaling_policy: [disabled]
workload: {isl: 2048, osl: 128, concurrency: 32, num_request_ratio: 2, shared_prefix_ratio: 0.5, num_prefix_groups: 4}
goal: {target: throughput_per_gpu}
`,
  },
  {
    name: 'dense disagg (Llama-3.1-70B, H200, 16 GPUs)',
    kind: 'single',
    yaml: `
search_space:
  model_name: meta-llama/Llama-3.1-70B-Instruct
  hardware_sku: h200_sxm
  gpu_budget: 16
  deployment_mode: [disagg]
  backend: [vllm, sglang]
  prefill_max_num_batched_tokens: [8192, 16384]
  prefill_max_num_seqs: [1, 4, 16]
  decode_max_num_seqs: [256, 512, 1024]
  router_mode: [round_robin]
  planner_scaling_policy: [disabled]
workload: {isl: 2048, osl: 128, concurrency: 32, num_request_ratio: 2}
goal: {target: throughput_per_gpu}
`,
  },
  { name: 'MoE disagg (Qwen3-30B-A3B, H200, 8 GPUs)', kind: 'single', yaml: `${MOE_8}goal: {target: throughput_per_gpu}\n` },
  {
    name: 'MoE disagg pareto (Qwen3-30B-A3B, H200, 8 GPUs)',
    kind: 'pareto',
    yaml: `${MOE_8}goal: {target: pareto, pareto_objectives: [throughput_per_gpu, throughput_per_user]}\n`,
  },
  {
    name: 'MoE disagg SLA (Qwen3-30B-A3B, H200, 16 GPUs)',
    kind: 'single',
    harder: true,
    yaml: `
search_space:
  model_name: Qwen/Qwen3-30B-A3B
  hardware_sku: h200_sxm
  gpu_budget: 16
  deployment_mode: [disagg]
  backend: [vllm, sglang]
  prefill_max_num_batched_tokens: [8192, 16384]
  prefill_max_num_seqs: [4, 16]
  decode_max_num_seqs: [256, 1024]
  router_mode: [round_robin]
  planner_scaling_policy: [disabled]
workload: {isl: 2048, osl: 256, concurrency: 96, num_request_ratio: 1}
goal: {target: goodput_per_gpu, strict_sla: true, sla: {ttft_ms: 1500, itl_ms: 20}}
`,
  },
  {
    name: 'dense agg+disagg (Llama-3.1-70B, H200, 32 GPUs)',
    kind: 'single',
    harder: true,
    yaml: `
search_space:
  model_name: meta-llama/Llama-3.1-70B-Instruct
  hardware_sku: h200_sxm
  gpu_budget: 32
  deployment_mode: [agg, disagg]
  backend: [vllm, sglang, trtllm]
  agg_max_num_batched_tokens: [8192, 16384, 32768]
  agg_max_num_seqs: [256, 512, 1024]
  prefill_max_num_batched_tokens: [8192, 16384, 32768]
  prefill_max_num_seqs: [1, 4, 16, 64]
  decode_max_num_seqs: [256, 512, 1024]
  router_mode: [round_robin]
  planner_scaling_policy: [disabled]
workload: {isl: 4096, osl: 512, concurrency: 128, num_request_ratio: 1}
goal: {target: goodput_per_gpu, sla: {ttft_ms: 8000, itl_ms: 30}}
`,
  },
  {
    name: 'trace agg router+planner (Llama-3.1-8B, H100, 8 GPUs)',
    kind: 'single',
    harder: true,
    baseDir: 'examples',
    yaml: `
search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  gpu_budget: 8
  deployment_mode: [agg]
  backend: [vllm, sglang]
  agg_max_num_seqs: [256]
  agg_max_num_batched_tokens: [8192, 16384]
  router_mode: [kv_router, round_robin]
  overlap_score_credit: [0.0, 1.0]
  prefill_load_scale: [0.5, 1.0, 4.0]
  router_temperature: [0.0, 0.5, 1.0]
  planner_scaling_policy: [disabled, load_180_5, throughput_180_5]
  planner_load_sensitivity: [aggressive, default]
  planner_fpm_sampling: [default]
  load_predictor_candidates: [constant_last]
workload:
  trace_path: traces/mooncake-small.jsonl
  arrival_speedup_ratio: 15.0
goal: {target: goodput_per_gpu, sla: {ttft_ms: 300, itl_ms: 10}}
`,
  },
];
