// Whether a branch runs the load-predictor forecast-loss sub-sweep, and over which forecasters
// (seed "Load predictor", dynamo-facts §6). The sub-sweep itself lives in src/forecast/.
import {
  compositeLabel,
  enablesThroughputScaling,
  expandLoadPredictor,
  expandScalingPolicy,
  LOAD_PREDICTOR_PRESETS,
  type LoadPredictorSpec,
} from '../config/composites.js';
import type { SmartSearchConfig } from '../config/schema.js';
import type { BranchDimensions } from './dimensions.js';

export type LoadPredictorPlanReason =
  /** Some kept policy scales on throughput and the workload is a trace: score every candidate. */
  | 'forecast_loss_sub_sweep'
  /** No kept policy enables throughput scaling: forecasters are unused. */
  | 'no_throughput_scaling_candidate'
  /** Synthetic (static) workload: nothing to forecast, `constant_last` for every interval. */
  | 'static_workload_constant';

export interface LoadPredictorPlan {
  reason: LoadPredictorPlanReason;
  /** The configured candidates, expanded (family fields defaulted). */
  candidates: { label: string; spec: LoadPredictorSpec }[];
  /** Distinct throughput adjustment intervals (s) of the kept policies; one winner per interval. */
  intervals_seconds: number[];
  /** What the main sweep uses when the sub-sweep does not run. */
  fallback: { label: 'constant_last'; spec: LoadPredictorSpec };
}

export function planLoadPredictor(config: SmartSearchConfig, branch: BranchDimensions): LoadPredictorPlan {
  const candidates = config.search_space.load_predictor_candidates.map((e) => ({ label: compositeLabel(e), spec: expandLoadPredictor(e) }));
  const throughputPolicies = branch.scaling_policies.filter(enablesThroughputScaling);
  const intervals = [
    ...new Set(
      throughputPolicies
        .map((p) => expandScalingPolicy(p).throughput_adjustment_interval_seconds)
        .filter((x): x is number => x !== null),
    ),
  ].sort((a, b) => a - b);
  const reason: LoadPredictorPlanReason =
    throughputPolicies.length === 0
      ? 'no_throughput_scaling_candidate'
      : config.workload.trace_path === undefined
        ? 'static_workload_constant'
        : 'forecast_loss_sub_sweep';
  return {
    reason,
    candidates,
    intervals_seconds: intervals,
    fallback: { label: 'constant_last', spec: { ...LOAD_PREDICTOR_PRESETS.constant_last } },
  };
}
