// A failed sweep run as a CLI error, the same rule for `spica sweep`, `resume` and `result`: bad input
// found in any activity (workflows/input-failure.ts) exits 2 with its type and file:line message, as
// `--local` does; anything else is a Temporal-side failure (exit 3) that a resume may fix.
import { InputError, TemporalUnavailable } from '../../errors.js';
import { inputFailureOf, rootFailure } from '../../../workflows/input-failure.js';

export function sweepFailureError(err: unknown, workflowId: string): Error {
  const input = inputFailureOf(err);
  if (input) return new InputError(`sweep ${workflowId} failed (${input.type}): ${input.message}`);
  const root = rootFailure(err);
  const outer = (err as Error)?.message ?? String(err);
  const reason = root instanceof Error && root !== err && root.message !== outer ? `${outer}: ${root.message}` : outer;
  return new TemporalUnavailable(`sweep ${workflowId} failed: ${reason}`);
}

/** Whether `spica resume` can help a run that failed with `err` (bad input fails again). */
export function resumeCanFix(err: unknown): boolean {
  return inputFailureOf(err) === null;
}
