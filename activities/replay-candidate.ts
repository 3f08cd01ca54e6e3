// `replayCandidate` activity: one candidate of a branch wave — the work unit Temporal spreads over
// every worker polling the task queue (each worker takes only as many as it has activity slots,
// one replay thread per slot). Its own retry, heartbeat and timeout: a lost worker costs the
// replays it held, never a whole wave. Persistent-cache hit, else the worker-thread pool (bounded by
// max_eval_seconds); a replay failure is an outcome, never an activity failure.
import { performance } from 'node:perf_hooks';
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import type { MaterializedCandidate } from '../src/search/study/materialize.js';
import type { EvalOutcome } from '../src/search/trial.js';
import type { ActivityContext } from '../workflows/sweep-types.js';
import { resolveContext } from './context.js';
import { testPause } from './test-pause.js';
import { evaluateWithCache } from './replay-wave.js';

/** Heartbeat period; the workflow's heartbeat timeout is a few of these. */
export const REPLAY_HEARTBEAT_MS = 5_000;

export interface CandidateOutcome {
  outcome: EvalOutcome;
  /** Answered by the persistent cache (not part of determinism). */
  cache_hit: boolean;
  /** Milliseconds spent answering (see WaveOutcome.replay_ms). */
  replay_ms: number;
}

export async function replayCandidate(input: { context: ActivityContext; candidate: MaterializedCandidate }): Promise<CandidateOutcome> {
  const ctx = Context.current();
  ctx.heartbeat();
  const beat = setInterval(() => ctx.heartbeat(), REPLAY_HEARTBEAT_MS);
  try {
    await testPause('replay', ctx.cancellationSignal);
    const t0 = performance.now();
    const { outcomes, cache_hits } = await evaluateWithCache(await resolveContext(input.context), [input.candidate], ctx.cancellationSignal);
    if (ctx.cancellationSignal.aborted) throw new CancelledFailure('replay cancelled');
    return { outcome: outcomes[0], cache_hit: cache_hits > 0, replay_ms: Math.round(performance.now() - t0) };
  } finally {
    clearInterval(beat);
  }
}
