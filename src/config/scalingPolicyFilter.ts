// Which planner scaling policies a sweep goal can use (seed "How the sweep uses these").
// Predictive throughput scaling needs an SLA, so it survives only when the goal maps to the
// planner's "sla" target; an e2e-only SLA cannot seed the planner's ttft/itl target, so then
// only static policies survive.
import { compositeLabel, enablesAnyScaling, enablesThroughputScaling, type ScalingPolicyEntry } from './composites.js';

export type PlannerOptimizationTarget = 'throughput' | 'latency' | 'sla';

/** The minimal goal shape the planner mapping reads (avoids a cycle with schema.ts). */
export interface PlannerGoalView {
  target: string;
  sla?: { ttft_ms?: number | null; itl_ms?: number | null; e2e_ms?: number | null } | null;
}

// throughput, throughput_per_*, pareto → throughput; e2e_latency → latency; goodput, goodput_per_gpu → sla.
export function plannerOptimizationTarget(goal: PlannerGoalView): PlannerOptimizationTarget {
  if (goal.target === 'e2e_latency') return 'latency';
  if (goal.target === 'goodput' || goal.target === 'goodput_per_gpu') return 'sla';
  return 'throughput';
}

/** An SLA with only an e2e bound: replay can score it, the planner cannot target it. */
export function isE2eOnlySla(goal: PlannerGoalView): boolean {
  const sla = goal.sla;
  if (!sla) return false;
  return sla.e2e_ms != null && sla.ttft_ms == null && sla.itl_ms == null;
}

export interface ScalingPolicyFilterResult {
  kept: ScalingPolicyEntry[];
  dropped: { entry: ScalingPolicyEntry; label: string; rule: string }[];
}

export function filterScalingPolicies(policies: readonly ScalingPolicyEntry[], goal: PlannerGoalView): ScalingPolicyFilterResult {
  const target = plannerOptimizationTarget(goal);
  const e2eOnly = target === 'sla' && isE2eOnlySla(goal);
  const kept: ScalingPolicyEntry[] = [];
  const dropped: ScalingPolicyFilterResult['dropped'] = [];
  for (const entry of policies) {
    const label = compositeLabel(entry);
    if (e2eOnly && enablesAnyScaling(entry)) {
      dropped.push({
        entry,
        label,
        rule: `an e2e-only SLA cannot seed the planner's ttft/itl target: only static policies are kept`,
      });
    } else if (target !== 'sla' && enablesThroughputScaling(entry)) {
      dropped.push({
        entry,
        label,
        rule: `predictive throughput scaling needs an SLA: goal '${goal.target}' maps to planner target '${target}', not 'sla'`,
      });
    } else {
      kept.push(entry);
    }
  }
  return { kept, dropped };
}
