// What the `progress` query reports for one branch, computed from its trials (pure; runs in the
// workflow sandbox). ETA = remaining waves × average wave time of this branch so far.
import { goalObjectives, OBJECTIVE_DIRECTION, signedScore } from '../src/search/goal.js';
import { paretoFrontIndices } from '../src/search/pareto.js';
import type { StudyState } from '../src/search/study/branchStudy.js';
import type { BranchStudyPlan } from '../src/search/study/plan.js';
import type { TrialRecord } from '../src/search/study/trialRecord.js';
import type { BranchProgress, BranchStatus, TrialView } from './sweep-types.js';

export interface WaveClock {
  waves: number;
  wave_ms_total: number;
}

export function trialsWanted(plan: BranchStudyPlan): number {
  if (plan.settings.policy === 'thorough') return plan.thorough_size ?? 0;
  return plan.settings.max_rounds * Math.max(1, plan.settings.candidates_per_round);
}

/**
 * What progress needs of trials that left the workflow (stored in chunks): counts, the best so far
 * and the current Pareto front's objective vectors. Bounded: the front is pruned as trials arrive.
 */
export interface TrialTally {
  trials: number;
  counts: { feasible: number; infeasible: number; failed: number; timed_out: number; unsupported: number };
  best: BranchProgress['best'];
  /** Objective vectors of the front (pareto goals only; empty otherwise). */
  front: number[][];
}

export function emptyTally(): TrialTally {
  return { trials: 0, counts: { feasible: 0, infeasible: 0, failed: 0, timed_out: 0, unsupported: 0 }, best: null, front: [] };
}

/** The tally after `trials` (pure: returns a new tally). */
export function addToTally(plan: BranchStudyPlan, tally: TrialTally, trials: readonly TrialRecord[]): TrialTally {
  const names = goalObjectives(plan.goal);
  const first = names[0];
  const counts = { ...tally.counts };
  let best = tally.best;
  let front = tally.front;
  for (const t of trials) {
    counts[t.status] += 1;
    if (t.status !== 'feasible' || !t.objectives) continue;
    const v = t.objectives[first];
    if (best === null || signedScore(first, v) > signedScore(first, best.value)) best = { objective: first, value: v, trial: t.n };
    if (plan.goal.target === 'pareto') front = [...front, names.map((n) => t.objectives![n])];
  }
  if (front !== tally.front) {
    const directions = names.map((n) => OBJECTIVE_DIRECTION[n]);
    front = paretoFrontIndices(front, directions).sort((a, b) => a - b).map((i) => front[i]);
  }
  return { trials: tally.trials + trials.length, counts, best, front };
}

export function branchProgress(
  plan: BranchStudyPlan,
  state: StudyState,
  clock: WaveClock,
  extra: { workflowId: string; status: BranchStatus; continued_as_new: number },
  stored: TrialTally = emptyTally(),
): BranchProgress {
  const tally = addToTally(plan, stored, state.trials);
  const counts = tally.counts;
  const best = tally.best;
  const pareto = plan.goal.target === 'pareto' ? tally.front.length : null;
  const wanted = trialsWanted(plan);
  const avgWave = clock.waves > 0 ? clock.wave_ms_total / clock.waves / 1000 : null;
  const remaining = Math.max(0, wanted - tally.trials);
  const done = extra.status === 'done' || state.stop_reason !== null;
  const eta = done ? 0 : avgWave === null ? null : Math.ceil(remaining / Math.max(1, plan.settings.parallel_evals)) * avgWave;
  return {
    deployment_mode: plan.deployment_mode,
    workflowId: extra.workflowId,
    status: extra.status,
    round: state.round,
    max_rounds: plan.settings.max_rounds,
    trials_done: tally.trials,
    trials_wanted: wanted,
    ...counts,
    best,
    pareto_front_size: pareto,
    avg_wave_seconds: avgWave,
    eta_seconds: eta,
    continued_as_new: extra.continued_as_new,
    stop_reason: state.stop_reason,
  };
}

export function trialViews(plan: BranchStudyPlan, state: StudyState): TrialView[] {
  return state.trials.map((t) => ({
    branch: plan.deployment_mode,
    n: t.n,
    round: t.round,
    status: t.status,
    reason_category: t.reason_category,
    reason: t.reason,
    point: t.point,
    objectives: t.objectives,
    used_gpus: t.used_gpus,
    spica_projection: t.projection,
    cache_hit: t.cache_hit,
  }));
}
