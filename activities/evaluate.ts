// Candidate → ReplaySpec → ReplayReport → EvalOutcome: the evaluator both the replay activity and
// `spica sweep --local` use. Failures become outcomes with a reason category, never exceptions.
import type { SmartSearchConfig } from '../src/config/schema.js';
import { SpicaError } from '../src/errors.js';
import { ReplayInfeasible } from '../src/replay/infeasible.js';
import { runReplay, type ResolveOptions } from '../src/replay/resolve.js';
import type { ReplaySpec } from '../src/replay/spec.js';
import { sweptReplaySpec } from '../src/search/deploymentRecord.js';
import type { MaterializedCandidate } from '../src/search/study/materialize.js';
import type { EvalOutcome } from '../src/search/trial.js';

export interface EvaluationContext {
  config: SmartSearchConfig;
  traceSha256: string | null;
  resolve?: ResolveOptions;
}

/** The ReplaySpec a materialized candidate stands for (pure). */
export function replaySpecFor(ctx: EvaluationContext, m: MaterializedCandidate): ReplaySpec {
  if (!m.candidate) throw new Error('candidate was not built');
  return sweptReplaySpec(ctx.config, m.candidate, m.concurrency, ctx.traceSha256);
}

/** Runs one replay in this thread and classifies the result. */
export function evaluateCandidate(ctx: EvaluationContext, m: MaterializedCandidate): EvalOutcome {
  if (m.rejection) return { ok: false, ...m.rejection };
  let spec: ReplaySpec;
  try {
    spec = replaySpecFor(ctx, m);
  } catch (e) {
    return { ok: false, reason_category: 'build_error', reason: (e as Error).message };
  }
  try {
    const report = runReplay(spec, ctx.resolve);
    return { ok: true, metrics: report.metrics };
  } catch (e) {
    if (e instanceof ReplayInfeasible) return { ok: false, reason_category: e.reasonCategory, reason: e.message };
    if (e instanceof SpicaError) return { ok: false, reason_category: 'build_error', reason: e.message };
    return { ok: false, reason_category: 'replay_runtime', reason: (e as Error)?.message ?? String(e) };
  }
}
