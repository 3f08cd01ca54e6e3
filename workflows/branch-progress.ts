// What the `progress` query reports for one branch, computed from its trials (pure; runs in the
// workflow sandbox). It counts unique trials: a repeat answered by the run-local memo (cache_hit) is
// recorded but is neither progress nor a replay. ETA = what is still wanted (unique feasible trials
// under rapid — a round ends at candidates_per_round of them —, unique trials under thorough) × the
// replay time this branch has spent per one of them so far.
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
  /** Every recorded trial, repeats included. */
  trials: number;
  /** Unique trials: not repeats answered by the run-local memo (absent in tallies carried before it: = trials). */
  unique?: number;
  counts: { feasible: number; infeasible: number; failed: number; timed_out: number; unsupported: number };
  best: BranchProgress['best'];
  /** Objective vectors of the front (pareto goals only; empty otherwise). */
  front: number[][];
}

export function emptyTally(): TrialTally {
  return { trials: 0, unique: 0, counts: { feasible: 0, infeasible: 0, failed: 0, timed_out: 0, unsupported: 0 }, best: null, front: [] };
}

/** The tally after `trials` (pure: returns a new tally). Counts, best and front cover unique trials only. */
export function addToTally(plan: BranchStudyPlan, tally: TrialTally, trials: readonly TrialRecord[]): TrialTally {
  const names = goalObjectives(plan.goal);
  const first = names[0];
  const counts = { ...tally.counts };
  let best = tally.best;
  let front = tally.front;
  let unique = tally.unique ?? tally.trials;
  for (const t of trials) {
    if (t.cache_hit) continue;
    unique += 1;
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
  return { trials: tally.trials + trials.length, unique, counts, best, front };
}

/** Seconds still needed at this branch's replay time per unique (feasible, under rapid) trial so far; null before any. */
function etaSeconds(plan: BranchStudyPlan, wanted: number, unique: number, feasible: number, clock: WaveClock): number | null {
  const progressed = plan.settings.policy === 'thorough' ? unique : feasible;
  if (progressed === 0 || clock.waves === 0) return null;
  return (Math.max(0, wanted - progressed) * clock.wave_ms_total) / progressed / 1000;
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
  const unique = tally.unique ?? tally.trials;
  const done = extra.status === 'done' || state.stop_reason !== null;
  const eta = done ? 0 : etaSeconds(plan, wanted, unique, counts.feasible, clock);
  return {
    deployment_mode: plan.deployment_mode,
    workflowId: extra.workflowId,
    status: extra.status,
    round: state.round,
    max_rounds: plan.settings.max_rounds,
    trials_done: unique,
    trials_wanted: wanted,
    trials_recorded: tally.trials,
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
