// Scoring a replay against the sweep goal (dynamo-facts §3). Pure: the workflow and runSweepLocal share it.
import type { Goal, GoalTarget } from '../config/schema.js';

// Goal types come from the config schema (the single source of truth); GoalSpec is the part scoring
// reads, with the defaulted fields optional so plans and tests can state just a target.
export type GoalTargetName = GoalTarget;
export type ObjectiveName = Exclude<GoalTarget, 'pareto'>;
export type Direction = 'max' | 'min';
export type GoalSpec = Pick<Goal, 'target'> & Partial<Pick<Goal, 'pareto_objectives' | 'sla' | 'strict_sla'>>;

export const OBJECTIVE_DIRECTION: Record<ObjectiveName, Direction> = {
  throughput: 'max',
  throughput_per_gpu: 'max',
  throughput_per_user: 'max',
  e2e_latency: 'min',
  goodput: 'max',
  goodput_per_gpu: 'max',
};

/** The objectives a goal optimizes, in order (one for single-objective goals). */
export function goalObjectives(goal: GoalSpec): ObjectiveName[] {
  if (goal.target === 'pareto') return goal.pareto_objectives ?? ['throughput_per_gpu', 'throughput_per_user'];
  return [goal.target];
}

function read(metrics: Record<string, number>, key: string): number {
  const v = metrics[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** Raw (unsigned) value of one objective from a report's metrics. Missing maximized keys read 0. */
export function objectiveValue(name: ObjectiveName, metrics: Record<string, number>): number {
  const avgGpu = read(metrics, 'avg_gpu');
  switch (name) {
    case 'throughput':
      return read(metrics, 'output_throughput_tok_s');
    case 'throughput_per_gpu':
      return avgGpu > 0 ? read(metrics, 'output_throughput_tok_s') / avgGpu : 0;
    case 'throughput_per_user':
      return read(metrics, 'mean_output_token_throughput_per_user');
    case 'e2e_latency': {
      const v = metrics.mean_e2e_latency_ms;
      return typeof v === 'number' && Number.isFinite(v) ? v : Number.POSITIVE_INFINITY;
    }
    case 'goodput':
      return read(metrics, 'goodput_output_throughput_tok_s');
    case 'goodput_per_gpu':
      return avgGpu > 0 ? read(metrics, 'goodput_output_throughput_tok_s') / avgGpu : 0;
  }
}

/** Higher is always better: minimized objectives are sign-flipped. */
export function signedScore(name: ObjectiveName, raw: number): number {
  return OBJECTIVE_DIRECTION[name] === 'min' ? -raw : raw;
}

export interface Scored {
  /** First objective's raw value (the seed's `Candidate.score`). */
  score: number;
  /** Raw value of every objective. */
  objectives: Record<string, number>;
}

export function scoreReport(goal: GoalSpec, metrics: Record<string, number>): Scored {
  const names = goalObjectives(goal);
  const objectives: Record<string, number> = {};
  for (const n of names) objectives[n] = objectiveValue(n, metrics);
  return { score: objectives[names[0]], objectives };
}

/**
 * `strict_sla`: mean TTFT / ITL (mean TPOT) / E2E must meet the SLA (inclusive). Returns the first broken
 * bound as a reason, or null when the report passes (or no strict SLA applies).
 */
export function strictSlaViolation(goal: GoalSpec, metrics: Record<string, number>): string | null {
  if (!goal.strict_sla || !goal.sla) return null;
  const checks: [number | null | undefined, string, string][] = [
    [goal.sla.ttft_ms, 'mean_ttft_ms', 'TTFT'],
    [goal.sla.itl_ms, 'mean_tpot_ms', 'ITL'],
    [goal.sla.e2e_ms, 'mean_e2e_latency_ms', 'E2E'],
  ];
  for (const [bound, key, label] of checks) {
    if (bound == null) continue;
    const v = metrics[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v > bound) {
      return `mean ${label} ${typeof v === 'number' ? v.toFixed(1) : 'missing'} ms exceeds SLA ${bound} ms`;
    }
  }
  return null;
}
