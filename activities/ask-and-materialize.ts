// `askAndMaterialize` local activity: the steps of a branch's round between two waves in one local
// activity instead of up to four. It writes the trial chunk the previous round left (the ask may read
// the stored trials), asks the optimizer, materializes the asked points and recalls their keys'
// earlier trials from the stored chunks. Each local activity costs the workflow task a round trip
// between the workflow and the SDK core (schedule, dispatch, complete, a new activation), 2–7 ms on a
// 2-core box, on the critical path of every round (workflows/branch-study.ts ONE_STEP_ROUNDS_PATCH).
// Each step is the activity it replaces, in the same order, so a retry redoes the same work (the chunk
// write rewrites the same text under the same name).
import type { MaterializedCandidate } from '../src/search/study/materialize.js';
import type { TrialRecord } from '../src/search/study/trialRecord.js';
import type { ActivityContext } from '../workflows/sweep-types.js';
import { askOptimizer, type AskOptimizerInput, type AskOptimizerResult } from './ask-optimizer.js';
import { materializeCandidates } from './materialize.js';
import { recallTrials, storeTrialChunk, type TrialChunk, type TrialChunks } from './trial-chunks.js';

export interface AskAndMaterializeInput {
  /** Trial chunks to write first, in index order (the previous round's trials). */
  store: TrialChunk[];
  ask: AskOptimizerInput;
  /** The branch to materialize for; more than `maxPoints` asked points are left to the workflow (bounded calls). */
  materialize: { context: ActivityContext; maxPoints: number };
  /** The branch's stored chunks once `store` is written: recall the candidates' keys from them. */
  recall?: TrialChunks;
}

export interface AskAndMaterializeResult extends AskOptimizerResult {
  /** The asked points materialized, in order; null when there were more than `maxPoints`. */
  candidates: MaterializedCandidate[] | null;
  /**
   * `recallTrials` of every key among `candidates` (the round loop asks for the keys it does not hold
   * in memory, a subset: recallTrials answers each key alone, so the subset's answer is this one
   * filtered); null without `recall` or `candidates`.
   */
  recalled: TrialRecord[] | null;
}

export async function askAndMaterialize(input: AskAndMaterializeInput): Promise<AskAndMaterializeResult> {
  for (const chunk of input.store) await storeTrialChunk(chunk);
  const asked = await askOptimizer(input.ask);
  if (asked.points.length > input.materialize.maxPoints) return { ...asked, candidates: null, recalled: null };
  const candidates = asked.points.length === 0 ? [] : await materializeCandidates({ context: input.materialize.context, points: asked.points });
  if (!input.recall) return { ...asked, candidates, recalled: null };
  const keys = [...new Set(candidates.filter((c) => !c.rejection && c.key).map((c) => c.key))];
  return { ...asked, candidates, recalled: keys.length === 0 ? [] : await recallTrials({ ...input.recall, keys }) };
}
