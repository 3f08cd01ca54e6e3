// Merging branch studies into the SweepResult: candidate ids across branches, counts by status,
// and the view — ranked ids for a single objective, or the Pareto front sorted by the last objective.
import type { SmartSearchConfig } from '../config/schema.js';
import { SpicaError } from '../errors.js';
import { deploymentRecordOf, sweptReplaySpec, type DeploymentRecord } from './deploymentRecord.js';
import { goalObjectives, OBJECTIVE_DIRECTION, type GoalSpec } from './goal.js';
import { hypervolume, paretoFrontIndices, type Direction } from './pareto.js';
import { rankCandidates } from './rank.js';
import { convergence, type StudyState } from './study/branchStudy.js';
import type { BranchStudyPlan } from './study/plan.js';
import {
  candidateId,
  SWEEP_RESULT_SCHEMA_VERSION,
  type CandidateRow,
  type FlatCandidate,
  type Counts,
  type SweepResult,
} from './sweepResult.js';

/**
 * The hypervolume's reference point: 0 for a maximized objective (throughputs, goodputs: the origin,
 * as dynamo-facts §8 measures fronts), and 10 % beyond the worst feasible value for a minimized one
 * (latencies have no natural bound). Fixed by the run's own trials, so it is deterministic.
 */
export function referencePoint(points: readonly (readonly number[])[], directions: readonly Direction[]): number[] {
  return directions.map((d, k) => (d === 'max' ? 0 : points.length ? 1.1 * Math.max(...points.map((p) => p[k])) : 0));
}

/** How many ranked candidates a single-objective view lists. */
export const TOP_N = 10;

export interface BranchOutcome {
  plan: BranchStudyPlan;
  state: StudyState;
}

export interface AssembleInput {
  config: SmartSearchConfig;
  config_hash: string;
  sweep_id: string | null;
  simulator_version: string;
  branches: BranchOutcome[];
  load_predictor: Record<string, unknown> | null;
  warnings: string[];
  /** Persistent-cache hits (replays skipped because an earlier run had the result); not part of determinism. */
  persistent_cache_hits?: number;
}

/**
 * A feasible trial's resolved deployment. A replayed candidate always materializes (the evaluator
 * built its spec the same way); a trial that does not (hand-made records) simply carries none.
 */
function recordedDeployment(config: SmartSearchConfig, candidate: FlatCandidate, concurrency: number | null): DeploymentRecord | null {
  try {
    return deploymentRecordOf(sweptReplaySpec(config, candidate, concurrency));
  } catch (e) {
    if (e instanceof SpicaError) return null;
    throw e;
  }
}

export function assembleSweepResult(input: AssembleInput): SweepResult {
  const { config } = input;
  const goal: GoalSpec = config.goal;
  const objectiveNames = goalObjectives(goal);
  const rows: CandidateRow[] = [];
  for (const b of input.branches) {
    for (const t of b.state.trials) {
      if (!t.candidate) continue;
      rows.push({
        id: candidateId(rows.length + 1),
        branch: b.plan.deployment_mode,
        round: t.round,
        status: t.status,
        reason_category: t.reason_category,
        reason: t.reason,
        config: t.candidate,
        used_gpus: t.used_gpus,
        concurrency: t.concurrency,
        score: t.status === 'feasible' && t.objectives ? t.objectives[objectiveNames[0]] : null,
        objectives: t.objectives,
        metrics: t.metrics,
        spica_projection: t.projection,
        point: t.point,
        cache_hit: t.cache_hit,
        deployment: t.status === 'feasible' ? recordedDeployment(config, t.candidate, t.concurrency) : null,
      });
    }
  }
  const counts: Counts = { evaluated: rows.length, feasible: 0, infeasible: 0, unsupported: 0, timed_out: 0, failed: 0, cache_hits: 0 };
  for (const r of rows) {
    counts[r.status] += 1;
    if (r.cache_hit) counts.cache_hits += 1;
  }
  counts.cache_hits += input.persistent_cache_hits ?? 0;

  // One row per distinct candidate competes in the view (repeats are cache hits of the same replay).
  const seen = new Set<string>();
  const contenders = rows.filter((r) => {
    if (r.status !== 'feasible' || !r.objectives) return false;
    const key = JSON.stringify(r.config);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  let views: SweepResult['views'];
  let hv: SweepResult['hypervolume'] = null;
  if (goal.target === 'pareto') {
    const directions = objectiveNames.map((n) => OBJECTIVE_DIRECTION[n]);
    const points = contenders.map((r) => objectiveNames.map((n) => r.objectives![n]));
    const idx = paretoFrontIndices(points, directions);
    views = { pareto_front: idx.map((i) => contenders[i].id) };
    const ref = referencePoint(points, directions);
    hv = { value: hypervolume(idx.map((i) => points[i]), ref, directions), reference_point: Object.fromEntries(objectiveNames.map((n, k) => [n, ref[k]])) };
  } else {
    const ranked = rankCandidates(
      contenders.map((r) => ({ id: r.id, used_gpus: r.used_gpus, objectives: r.objectives! })),
      objectiveNames[0],
    );
    views = { top_n: ranked.slice(0, TOP_N).map((r) => r.id) };
  }

  return {
    schema_version: SWEEP_RESULT_SCHEMA_VERSION,
    sweep_id: input.sweep_id,
    config_hash: input.config_hash,
    simulator_version: input.simulator_version,
    question: {
      model_name: config.search_space.model_name,
      hardware_sku: config.search_space.hardware_sku,
      gpu_budget: config.search_space.gpu_budget,
      goal: { ...config.goal } as Record<string, unknown>,
      workload: { ...config.workload } as Record<string, unknown>,
      policy: config.sweep.policy,
      algorithm: config.sweep.algorithm,
      seed: config.sweep.seed,
    },
    objectives: objectiveNames.map((name) => ({ name, direction: OBJECTIVE_DIRECTION[name] })),
    counts,
    candidates: rows,
    views,
    branches: input.branches.map((b) => ({
      deployment_mode: b.plan.deployment_mode,
      backends: [...b.plan.backends],
      rounds: b.state.round,
      trials: b.state.trials.length,
      stop_reason: b.state.stop_reason ?? 'stopped',
      best_so_far: convergence(b.plan, b.state.trials),
    })),
    load_predictor: input.load_predictor,
    warnings: input.warnings,
    hypervolume: hv,
  };
}
