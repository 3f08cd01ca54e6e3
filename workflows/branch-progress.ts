// What the `progress` query reports for one branch, computed from its trials (pure; runs in the
// workflow sandbox). ETA = remaining waves × average wave time of this branch so far.
import { goalObjectives, OBJECTIVE_DIRECTION, signedScore } from '../src/search/goal.js';
import { paretoFrontIndices } from '../src/search/pareto.js';
import type { StudyState } from '../src/search/study/branchStudy.js';
import type { BranchStudyPlan } from '../src/search/study/plan.js';
import type { BranchProgress, BranchStatus, TrialView } from './sweep-types.js';

export interface WaveClock {
  waves: number;
  wave_ms_total: number;
}

export function trialsWanted(plan: BranchStudyPlan): number {
  if (plan.settings.policy === 'thorough') return plan.thorough_size ?? 0;
  return plan.settings.max_rounds * Math.max(1, plan.settings.candidates_per_round);
}

export function branchProgress(
  plan: BranchStudyPlan,
  state: StudyState,
  clock: WaveClock,
  extra: { workflowId: string; status: BranchStatus; continued_as_new: number },
): BranchProgress {
  const counts = { feasible: 0, infeasible: 0, failed: 0, timed_out: 0, unsupported: 0 };
  const names = goalObjectives(plan.goal);
  const first = names[0];
  let best: BranchProgress['best'] = null;
  const front: number[][] = [];
  for (const t of state.trials) {
    counts[t.status] += 1;
    if (t.status !== 'feasible' || !t.objectives) continue;
    const v = t.objectives[first];
    if (best === null || signedScore(first, v) > signedScore(first, best.value)) best = { objective: first, value: v, trial: t.n };
    front.push(names.map((n) => t.objectives![n]));
  }
  const pareto = plan.goal.target === 'pareto' ? paretoFrontIndices(front, names.map((n) => OBJECTIVE_DIRECTION[n])).length : null;
  const wanted = trialsWanted(plan);
  const avgWave = clock.waves > 0 ? clock.wave_ms_total / clock.waves / 1000 : null;
  const remaining = Math.max(0, wanted - state.trials.length);
  const done = extra.status === 'done' || state.stop_reason !== null;
  const eta = done ? 0 : avgWave === null ? null : Math.ceil(remaining / Math.max(1, plan.settings.parallel_evals)) * avgWave;
  return {
    deployment_mode: plan.deployment_mode,
    workflowId: extra.workflowId,
    status: extra.status,
    round: state.round,
    max_rounds: plan.settings.max_rounds,
    trials_done: state.trials.length,
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
