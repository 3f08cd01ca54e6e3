// Trials written to the store (one chunk per round) are compact (CLARIFICATIONS §E: well under 1 KB): the
// candidate and its projection are dropped (the materializer rebuilds both from the point) and
// metrics shrink to the keys this goal's scoring reads, which the round loop still needs to answer
// a repeated candidate from the run-local cache. The `report` activity re-hydrates all of it
// (materializer + persistent cache). The parent sweep keeps the full trial views for its queries.
import { goalObjectives, type GoalSpec, type ObjectiveName } from '../src/search/goal.js';
import type { StudyState } from '../src/search/study/branchStudy.js';
import type { Point } from '../src/search/optimizer/space.js';
import type { TrialRecord } from '../src/search/study/trialRecord.js';

/** The metrics goal.ts reads per objective (objectiveValue). */
const OBJECTIVE_METRICS: Record<ObjectiveName, string[]> = {
  throughput: ['output_throughput_tok_s'],
  throughput_per_gpu: ['output_throughput_tok_s', 'avg_gpu'],
  throughput_per_user: ['mean_output_token_throughput_per_user'],
  e2e_latency: ['mean_e2e_latency_ms'],
  goodput: ['goodput_output_throughput_tok_s'],
  goodput_per_gpu: ['goodput_output_throughput_tok_s', 'avg_gpu'],
};

/** Every metric scoring under `goal` reads (objectives, and the strict SLA bounds). */
export function scoringMetricKeys(goal: GoalSpec): string[] {
  const keys = new Set(goalObjectives(goal).flatMap((n) => OBJECTIVE_METRICS[n]));
  if (goal.strict_sla && goal.sla) {
    if (goal.sla.ttft_ms != null) keys.add('mean_ttft_ms');
    if (goal.sla.itl_ms != null) keys.add('mean_tpot_ms');
    if (goal.sla.e2e_ms != null) keys.add('mean_e2e_latency_ms');
  }
  return [...keys];
}

export function compactTrial(t: TrialRecord, keys: readonly string[]): TrialRecord {
  let metrics: Record<string, number> | null = null;
  if (t.metrics) {
    metrics = {};
    for (const k of keys) if (k in t.metrics) metrics[k] = t.metrics[k];
  }
  // The optimizer was told the projected point: keep the dimensions the projection moved, so the
  // told history can be rebuilt from the stored trials (carryToldTrials).
  const actual = t.projection?.actual;
  let observed: Point | undefined;
  if (actual) {
    for (const k of Object.keys(t.point)) {
      if (k in actual && actual[k] !== t.point[k]) (observed ??= {})[k] = actual[k];
    }
  }
  return { ...t, candidate: null, projection: null, metrics, ...(observed ? { observed } : {}) };
}

export function compactState(s: StudyState, goal: GoalSpec): StudyState {
  const keys = scoringMetricKeys(goal);
  return { ...s, trials: s.trials.map((t) => compactTrial(t, keys)) };
}

/**
 * The study state to carry across continue-as-new (and return) without the optimizer's told trials,
 * when every one of them is a stored trial: the optimizer was told trials 1..N in order, so the first
 * `told_in_store` of its history are rebuilt from the chunks by the ask activity (askOptimizer's
 * `told`). Otherwise (a trial not stored yet, no optimizer) the state is carried as it is.
 * `toldInStore`: how many of the branch's told trials the state already leaves out.
 */
export function carryToldTrials(s: StudyState, toldInStore: number): { state: StudyState; told_in_store: number } {
  const opt = s.optimizer;
  if (!opt || opt.trials.length === 0 || s.trials.length > 0 || toldInStore + opt.trials.length !== (s.stored_trials ?? 0)) {
    return { state: s, told_in_store: toldInStore };
  }
  return { state: { ...s, optimizer: { ...opt, trials: [] } }, told_in_store: toldInStore + opt.trials.length };
}
