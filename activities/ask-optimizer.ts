// `askOptimizer` local activity: one optimizer ask (the GP fit + acquisition, seconds for a long
// branch) run outside workflow code, so a replaying worker reads the recorded points instead of
// refitting every round (CLARIFICATIONS E). Pure: the result depends only on the state and n.
//
// A long branch's workflow does not carry the optimizer's told trials (~330 B each, they grew past
// 1 MB near 3,000 trials): past a continue-as-new its state leaves out the first `told.count` of them,
// which are the branch's stored trials 1..count (workflows/compact-trial.ts carryToldTrials). The
// activity rebuilds them from the trial chunks exactly as the loop told them (toldTrial), keeping
// the rebuilt history per worker process so each ask only tells the trials stored since the last.
import type { AnalyticPrior, OptimizerState, StoredTrial } from '../src/search/optimizer/optimizer.js';
import type { BranchMaterializer } from '../src/search/study/materialize.js';
import { analyticPrior } from './analytic-prior.js';
import { restoreOptimizer } from '../src/search/optimizer/optimizer.js';
import type { Point } from '../src/search/optimizer/space.js';
import { toldTrial } from '../src/search/study/branchStudy.js';
import type { BranchContext } from '../workflows/sweep-types.js';
import { branchMaterializer } from './materialize.js';
import { nonRetryable } from './plan.js';
import { testPause } from './test-pause.js';
import { readTrialChunks, type TrialChunks } from './trial-chunks.js';

/**
 * The optimizer state after an ask, without its told trials: an ask never changes them, and leaving
 * them out keeps each recorded result small (it would otherwise grow with the branch, once per ask).
 */
export type AskedOptimizerState = Omit<OptimizerState, 'trials'>;

export interface AskOptimizerResult {
  points: Point[];
  state: AskedOptimizerState;
}

// One prior per branch materializer (cachedSweepPlan keeps those per config): its pool memo serves every ask.
const priors = new WeakMap<object, AnalyticPrior | null>();

function branchPrior(context: BranchContext, materializer: BranchMaterializer): AnalyticPrior | null {
  if (!priors.has(materializer)) priors.set(materializer, analyticPrior(context.config, materializer));
  return priors.get(materializer)!;
}

export function askOptimizerPure(input: { state: OptimizerState; n: number; context?: BranchContext }): AskOptimizerResult {
  const materializer = input.context ? branchMaterializer(input.context) : null;
  const prior = materializer && input.state.prior_mean ? branchPrior(input.context!, materializer) : null;
  const opt = restoreOptimizer(
    input.state,
    materializer
      ? { project: (p) => materializer.projectPoint(p), lowCorners: (p) => materializer.lowCorners(p), ...(prior ? { prior } : {}) }
      : {},
  );
  const points = opt.ask(input.n);
  const { trials: _told, ...state } = opt.state();
  return { points, state };
}

/** The optimizer's first `count` told trials are the branch's stored trials 1..count, in these chunks. */
export interface ToldInStore extends TrialChunks {
  count: number;
}

export interface AskOptimizerInput {
  /** Its `trials` are the told trials after the first `told.count` (all of them without `told`). */
  state: OptimizerState;
  n: number;
  told?: ToldInStore;
  /**
   * The branch the optimizer searches: its materializer's projection is the optimizer's projector,
   * exactly as the in-process loop uses it (StudyPorts.project). Absent (asks recorded before it was
   * passed): no projector.
   */
  context?: BranchContext;
}

// Rebuilt told histories of recently asked branches (chunks never change once written).
const CACHED_BRANCHES = 8;
const toldCache = new Map<string, StoredTrial[]>();

/** The optimizer's record of stored trials 1..told.count, as `tell` made it when the loop told them. */
export async function storedTold(state: OptimizerState, told: ToldInStore): Promise<StoredTrial[]> {
  let known = toldCache.get(told.prefix) ?? [];
  toldCache.delete(told.prefix);
  if (known.length < told.count) {
    const records = (await readTrialChunks(told)).flat();
    if (records.length < told.count) throw new Error(`branch ${told.prefix}: the optimizer was told ${told.count} stored trials but ${told.chunks} chunks hold ${records.length}`);
    // The same `tell` on an empty history: a told trial's record depends only on it and the space.
    const scratch = restoreOptimizer({ ...state, trials: [], pending: [], queue: [] });
    scratch.tell(records.slice(known.length, told.count).map((t) => toldTrial(state.space, t)));
    known = [...known, ...scratch.state().trials];
  }
  toldCache.set(told.prefix, known);
  while (toldCache.size > CACHED_BRANCHES) toldCache.delete(toldCache.keys().next().value!);
  return known.slice(0, told.count);
}

export async function askOptimizer(input: AskOptimizerInput): Promise<AskOptimizerResult> {
  await testPause('ask');
  let state = input.state;
  if (input.told && input.told.count > 0) {
    // A store that cannot be read is worth a retry (elsewhere); a corrupt state is not (nonRetryable).
    let head: StoredTrial[];
    try {
      head = await storedTold(state, input.told);
    } catch (err) {
      nonRetryable(err);
    }
    state = { ...state, trials: [...head, ...state.trials] };
  }
  try {
    return askOptimizerPure({ state, n: input.n, ...(input.context ? { context: input.context } : {}) });
  } catch (err) {
    // A corrupt state or bad n is an InputError: retrying cannot help.
    nonRetryable(err);
  }
}
