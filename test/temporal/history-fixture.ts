// The sweep recorded into test/temporal/histories/ by scripts/record-histories.ts.
export const HISTORY_FIXTURE_WORKFLOW_ID = 'spica-history-fixture';

export const HISTORY_FIXTURE_CONFIG_YAML = `search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  deployment_mode: [agg, disagg]
  gpu_budget: 8
workload:
  isl: 1024
  osl: 128
  num_request_ratio: 4
  request_rate: 2
goal:
  target: pareto
sweep:
  seed: 3
`;
