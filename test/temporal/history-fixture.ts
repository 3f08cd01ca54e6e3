// The sweep recorded into test/temporal/histories/ by scripts/record-histories.ts.
export const HISTORY_FIXTURE_WORKFLOW_ID = 'spica-history-fixture';

/** Two branches (agg, disagg), one round of two candidates each: small histories, millisecond replays. */
export const HISTORY_FIXTURE_CONFIG_YAML = `search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  deployment_mode: [agg, disagg]
  backend: [vllm]
  gpu_budget: 2
workload:
  isl: 128
  osl: 64
  concurrency: 4
  num_request_ratio: 4
goal:
  target: pareto
sweep:
  max_rounds: 1
  candidates_per_round: 2
  parallel_evals: 2
  seed: 3
`;
