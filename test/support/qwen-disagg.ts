// A small disagg MoE config the analytic-prior tests share: Qwen3-30B-A3B on 8×H200, two backends,
// two prefill and two decode batching limits, fixed lengths (so the fluid estimate applies).
export function qwenDisaggYaml(seed: number): string {
  return `
search_space:
  model_name: Qwen/Qwen3-30B-A3B
  hardware_sku: h200_sxm
  gpu_budget: 8
  deployment_mode: [disagg]
  backend: [vllm, sglang]
  prefill_max_num_batched_tokens: [8192, 16384]
  decode_max_num_seqs: [256, 1024]
  router_mode: [round_robin]
  planner_scaling_policy: [disabled]
workload: {isl: 1024, osl: 128, concurrency: 32, num_request_ratio: 2}
goal: {target: throughput_per_gpu}
sweep: {policy: rapid, seed: ${seed}}
`;
}
