// The whole sweep in one process, with exactly the logic the Temporal workflows run: plan, one
// branch study per viable deployment_mode (same round loop, same ports contract), merge. The
// evaluator (replay) is injected so this module never imports the simulator.
import type { SmartSearchConfig } from '../config/schema.js';
import { NoViableParallelConfig } from '../errors.js';
import { assembleSweepResult, type BranchOutcome } from './assembleResult.js';
import { runBranchStudy, type StudyHooks } from './study/branchStudy.js';
import type { MaterializedCandidate } from './study/materialize.js';
import type { RunnerCapabilities } from './providers/capabilities.js';
import { planSweep, type PlannedBranch, type SweepPlanOptions } from './sweepPlan.js';
import type { SweepResult } from './sweepResult.js';
import type { EvalOutcome } from './trial.js';
import type { AnalyticPrior } from './optimizer/optimizer.js';

export interface CandidateEvaluator {
  /** Replays one wave of candidates; outcomes in input order. */
  evaluate(candidates: MaterializedCandidate[], branch: PlannedBranch): Promise<EvalOutcome[]>;
  readonly simulatorVersion: string;
  /** What the runner behind this evaluator supports (preflight before the first trial). */
  readonly capabilities: RunnerCapabilities;
  /** Replays skipped thanks to a persistent cache (reported in counts, not part of determinism). */
  persistentCacheHits?(): number;
}

export interface LocalSweepOptions extends SweepPlanOptions {
  evaluator: CandidateEvaluator;
  sweepId?: string | null;
  /** Progress callback after every wave (trials so far per branch). */
  onProgress?: (mode: string, trials: number) => void;
  shouldStop?: () => boolean;
  /** The branch's analytic prior for the optimizer (activities/analytic-prior.ts), or null for none. */
  prior?: (branch: PlannedBranch) => AnalyticPrior | null;
}

export async function runSweepLocal(config: SmartSearchConfig, opts: LocalSweepOptions): Promise<SweepResult> {
  const plan = planSweep(config, { ...opts, capabilities: opts.evaluator.capabilities });
  if (plan.branches.length === 0) {
    throw new NoViableParallelConfig(config.search_space.deployment_mode.join('+'), plan.warnings.join('; ') || 'no viable deployment_mode');
  }
  const outcomes: BranchOutcome[] = [];
  for (const branch of plan.branches) {
    const prior = opts.prior?.(branch) ?? null;
    const hooks: StudyHooks = {
      shouldStop: opts.shouldStop,
      afterWave: (s) => opts.onProgress?.(branch.plan.deployment_mode, s.trials.length),
    };
    const { state } = await runBranchStudy(
      branch.plan,
      {
        materialize: async (points) => points.map((p) => branch.materializer.materialize(p)),
        project: (p) => branch.materializer.projectPoint(p),
        lowCorners: (p) => branch.materializer.lowCorners(p),
        ...(prior ? { prior } : {}),
        evaluate: (cands) => opts.evaluator.evaluate(cands, branch),
      },
      hooks,
    );
    outcomes.push({ plan: branch.plan, state });
  }
  return assembleSweepResult({
    config,
    config_hash: plan.config_hash,
    sweep_id: opts.sweepId ?? null,
    simulator_version: opts.evaluator.simulatorVersion,
    branches: outcomes,
    load_predictor: plan.load_predictor as unknown as Record<string, unknown>,
    warnings: plan.warnings,
    persistent_cache_hits: opts.evaluator.persistentCacheHits?.(),
  });
}
