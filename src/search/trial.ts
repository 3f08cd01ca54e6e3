// A Trial: one evaluated (or rejected) candidate of a branch study, as the sweep records it.

export type TrialStatus = 'feasible' | 'infeasible' | 'unsupported' | 'timed_out' | 'failed';

/** Why a trial is not feasible (SweepResult `reason_category`). */
export type ReasonCategory =
  | 'gpu_budget'
  | 'kv_capacity'
  | 'sla_constraint'
  | 'runtime_timeout'
  | 'replay_runtime'
  | 'build_error'
  | 'unsupported_topology';

export const STATUS_OF_REASON: Record<ReasonCategory, TrialStatus> = {
  gpu_budget: 'infeasible',
  kv_capacity: 'infeasible',
  sla_constraint: 'infeasible',
  runtime_timeout: 'timed_out',
  replay_runtime: 'failed',
  build_error: 'failed',
  unsupported_topology: 'unsupported',
};

/** Outcome of evaluating one candidate, before scoring. */
export type EvalOutcome =
  | { ok: true; metrics: Record<string, number> }
  | { ok: false; reason_category: ReasonCategory; reason: string };
