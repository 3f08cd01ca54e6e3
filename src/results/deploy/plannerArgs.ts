// The Dynamo planner's arguments: its PlannerConfig as one JSON `--config` value, with the payload
// field names of dynamo-facts §5 (`mode`, `optimization_target`, `max_gpu_budget`, `min_gpu_budget`,
// `min_endpoint`, `decode_engine_num_gpu`, `prefill_engine_num_gpu`, `ttft_ms`/`itl_ms`), intervals in
// seconds. Every value is the one the replay's planner ran with (the deployment record). The
// `--config` flag name is the one part not confirmed against a released planner CLI.
import type { DeploymentRecord } from '../../search/deploymentRecord.js';
import type { DeployedRole } from '../roles.js';

export const PLANNER_MODULE = 'dynamo.planner';

/** The PlannerConfig object the planner reads (nulls dropped: an unset bound means none). */
export function plannerConfig(d: DeploymentRecord, roles: readonly DeployedRole[]): Record<string, unknown> {
  const p = d.planner;
  const bd = d.backend_deployment;
  const engineGpus = (role: string) => {
    const r = roles.find((x) => x.role === role);
    return r ? r.group.tp * r.group.attention_dp : null;
  };
  const disagg = bd.deployment_mode === 'disagg';
  const cfg: Record<string, unknown> = {
    mode: bd.deployment_mode,
    backend: bd.backend,
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
    ...(p.enable_throughput_scaling ? p.load_predictor_spec : {}),
    max_gpu_budget: p.max_gpu_budget,
    min_gpu_budget: p.min_gpu_budget > 0 ? p.min_gpu_budget : null,
    min_endpoint: p.min_endpoint,
    decode_engine_num_gpu: disagg ? engineGpus('decode') : engineGpus('agg'),
    prefill_engine_num_gpu: disagg ? engineGpus('prefill') : null,
    ttft_ms: p.ttft_ms,
    itl_ms: p.itl_ms,
  };
  return Object.fromEntries(Object.entries(cfg).filter(([, v]) => v !== null));
}

export function plannerArgs(d: DeploymentRecord, roles: readonly DeployedRole[]): string[] {
  return ['--config', JSON.stringify(plannerConfig(d, roles))];
}
