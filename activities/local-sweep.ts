// `spica sweep --local`: the same sweep without a Temporal server — runSweepLocal with the engine the
// workers use: each wave's replays run concurrently on the process-wide worker-thread pool (one
// thread per core), each bounded by max_eval_seconds (past it the thread is terminated and the trial
// is timed_out). No persistent cache: a local run replays everything it needs once (its run-local
// memo answers repeats, never with a timed-out trial).
import type { SmartSearchConfig } from '../src/config/schema.js';
import { REPLAY_RUNNER_CAPABILITIES } from '../src/replay/capabilities.js';
import { SIMULATOR_VERSION } from '../src/replay/report.js';
import { runSweepLocal, type CandidateEvaluator, type LocalSweepOptions } from '../src/search/runSweepLocal.js';
import type { SweepResult } from '../src/search/sweepResult.js';
import { replayPool } from './replay-pool.js';
import { traceInputsFor } from './sweep-inputs.js';
import { analyticPrior } from './analytic-prior.js';

export function localEvaluator(config: SmartSearchConfig, traceSha256: string | null): CandidateEvaluator {
  const ctx = { config, traceSha256 };
  return {
    simulatorVersion: SIMULATOR_VERSION,
    capabilities: REPLAY_RUNNER_CAPABILITIES,
    evaluate: (candidates) =>
      Promise.all(candidates.map((candidate) => replayPool().run({ ctx, candidate, timeoutSeconds: config.sweep.max_eval_seconds }))),
  };
}

export async function runLocalSweep(
  config: SmartSearchConfig,
  opts: Pick<LocalSweepOptions, 'sweepId' | 'onProgress' | 'shouldStop'> = {},
): Promise<SweepResult> {
  const trace = traceInputsFor(config);
  return runSweepLocal(config, {
    ...opts,
    evaluator: localEvaluator(config, trace.traceSha256),
    traceRequests: trace.traceRequests,
    prior: (branch) => analyticPrior(config, branch.materializer),
  });
}
