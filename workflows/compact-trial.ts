// Trials written to the store (one chunk per round) are compact (CLARIFICATIONS §E: well under 1 KB): the
// candidate and its projection are dropped (the materializer rebuilds both from the point) and
// metrics shrink to the keys this goal's scoring reads, which the round loop still needs to answer
// a repeated candidate from the run-local cache. The `report` activity re-hydrates all of it
// (materializer + persistent cache). The parent sweep keeps the full trial views for its queries.
import { goalObjectives, type GoalSpec, type ObjectiveName } from '../src/search/goal.js';
import type { StudyState } from '../src/search/study/branchStudy.js';
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
  return { ...t, candidate: null, projection: null, metrics };
}

export function compactState(s: StudyState, goal: GoalSpec): StudyState {
  const keys = scoringMetricKeys(goal);
  return { ...s, trials: s.trials.map((t) => compactTrial(t, keys)) };
}
