// `askOptimizer` local activity: one optimizer ask (the GP fit + acquisition, seconds for a long
// branch) run outside workflow code, so a replaying worker reads the recorded points instead of
// refitting every round (CLARIFICATIONS E). Pure: the result depends only on the state and n.
import type { OptimizerState } from '../src/search/optimizer/optimizer.js';
import { restoreOptimizer } from '../src/search/optimizer/optimizer.js';
import type { Point } from '../src/search/optimizer/space.js';
import { nonRetryable } from './plan.js';
import { testPause } from './test-pause.js';

/**
 * The optimizer state after an ask, without its told trials: an ask never changes them, and leaving
 * them out keeps each recorded result small (it would otherwise grow with the branch, once per ask).
 */
export type AskedOptimizerState = Omit<OptimizerState, 'trials'>;

export interface AskOptimizerResult {
  points: Point[];
  state: AskedOptimizerState;
}

export function askOptimizerPure(input: { state: OptimizerState; n: number }): AskOptimizerResult {
  const opt = restoreOptimizer(input.state);
  const points = opt.ask(input.n);
  const { trials: _told, ...state } = opt.state();
  return { points, state };
}

export async function askOptimizer(input: { state: OptimizerState; n: number }): Promise<AskOptimizerResult> {
  await testPause('ask');
  try {
    return askOptimizerPure(input);
  } catch (err) {
    // A corrupt state or bad n is an InputError: retrying cannot help.
    nonRetryable(err);
  }
}
