// `spica sweep --local`: the same sweep without a Temporal server — runSweepLocal with an in-process
// evaluator (the replay activity's `evaluateCandidate`, no thread pool, no persistent cache).
import type { SmartSearchConfig } from '../src/config/schema.js';
import { REPLAY_RUNNER_CAPABILITIES } from '../src/replay/capabilities.js';
import { SIMULATOR_VERSION } from '../src/replay/report.js';
import { runSweepLocal, type CandidateEvaluator, type LocalSweepOptions } from '../src/search/runSweepLocal.js';
import type { SweepResult } from '../src/search/sweepResult.js';
import { evaluateCandidate } from './evaluate.js';
import { traceInputsFor } from './sweep-inputs.js';

export function localEvaluator(config: SmartSearchConfig, traceSha256: string | null): CandidateEvaluator {
  return {
    simulatorVersion: SIMULATOR_VERSION,
    capabilities: REPLAY_RUNNER_CAPABILITIES,
    evaluate: async (candidates) => candidates.map((m) => evaluateCandidate({ config, traceSha256 }, m)),
  };
}

export async function runLocalSweep(
  config: SmartSearchConfig,
  opts: Pick<LocalSweepOptions, 'sweepId' | 'onProgress' | 'shouldStop'> = {},
): Promise<SweepResult> {
  const trace = traceInputsFor(config);
  return runSweepLocal(config, { ...opts, evaluator: localEvaluator(config, trace.traceSha256), traceRequests: trace.traceRequests });
}
