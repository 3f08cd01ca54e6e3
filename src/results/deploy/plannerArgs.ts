// The Dynamo planner's arguments: its PlannerConfig as one JSON `--config` value (the planner is
// configured by a PlannerConfig JSON/YAML object; field names follow the planner payload in
// dynamo-facts §5, with intervals in seconds and ttft/itl in ms). The `--config` flag name is the
// one part not confirmed against a released planner CLI.
import type { PlannerSettings } from '../plannerSettings.js';

export const PLANNER_MODULE = 'dynamo.planner';

/** The PlannerConfig object the planner reads (nulls dropped: unset means the planner default). */
export function plannerConfig(p: PlannerSettings): Record<string, unknown> {
  const cfg: Record<string, unknown> = {
    mode: p.mode,
    backend: p.backend,
    environment: 'kubernetes',
    optimization_target: p.optimization_target,
    enable_throughput_scaling: p.enable_throughput_scaling,
    enable_load_scaling: p.enable_load_scaling,
    throughput_adjustment_interval: p.throughput_adjustment_interval,
    load_adjustment_interval: p.load_adjustment_interval,
    max_num_fpm_samples: p.max_num_fpm_samples,
    fpm_sample_bucket_size: p.fpm_sample_bucket_size,
    load_scaling_down_sensitivity: p.load_scaling_down_sensitivity,
    load_min_observations: p.load_min_observations,
    ...(p.load_predictor ?? {}),
    max_gpu_budget: p.max_gpu_budget,
    min_gpu_budget: p.min_gpu_budget,
    min_endpoint: p.min_endpoint,
    decode_engine_num_gpu: p.decode_engine_num_gpu,
    prefill_engine_num_gpu: p.prefill_engine_num_gpu,
    ttft: p.ttft_ms,
    itl: p.itl_ms,
  };
  return Object.fromEntries(Object.entries(cfg).filter(([, v]) => v !== null));
}

export function plannerArgs(p: PlannerSettings): string[] {
  return ['--config', JSON.stringify(plannerConfig(p))];
}
