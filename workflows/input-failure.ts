// Bad input (a config, trace or perf-database problem) found in an activity travels as a
// non-retryable ApplicationFailure whose type is the error class (InputError, TraceFormatError,
// NoPerfDatabase, …) and whose details say it is the user's to fix (exit code 2). Workflows rethrow
// it at top level so the run's failure is the reason itself, not "Activity task failed"; the CLI reads
// it the same way (exit 2 with the file:line message, no `spica resume` hint: a resume fails again).
// Pure; shared by workflow code and the CLI.
import { ApplicationFailure, TemporalFailure } from '@temporalio/common';

export interface InputFailureDetails {
  exit_code: 2;
  /** Config issues (path, line, …) when the error carries them. */
  issues?: unknown;
}

/** Types thrown as input failures before the details carried an exit code (older runs). */
const LEGACY_INPUT_TYPES = /Invalid|InputError|NoViable|NoPerfDatabase|TraceFormatError/;

/** The innermost failure of a cause chain (WorkflowFailed → ChildWorkflow → Activity → Application). */
export function rootFailure(err: unknown): unknown {
  let e: unknown = err;
  while (e instanceof TemporalFailure && e.cause) e = e.cause;
  // The client wraps the chain in WorkflowFailedError (not a TemporalFailure): start from its cause.
  if (!(e instanceof TemporalFailure) && e instanceof Error && e.cause instanceof Error && e.cause !== err) return rootFailure(e.cause);
  return e;
}

export function isInputFailure(f: unknown): f is ApplicationFailure {
  if (!(f instanceof ApplicationFailure) || !f.nonRetryable) return false;
  const d = f.details?.[0] as Partial<InputFailureDetails> | undefined;
  return d?.exit_code === 2 || LEGACY_INPUT_TYPES.test(f.type ?? '');
}

/** The input failure somewhere in `err`'s cause chain, or null. */
export function inputFailureOf(err: unknown): ApplicationFailure | null {
  const root = rootFailure(err);
  return isInputFailure(root) ? root : null;
}

/** Rethrows an input failure found in `err`'s chain at top level; anything else unchanged. */
export function rethrowInputFailure(err: unknown): never {
  const f = inputFailureOf(err);
  if (f) throw ApplicationFailure.create({ message: f.message, type: f.type ?? undefined, nonRetryable: true, details: f.details ? [...f.details] : [] });
  throw err;
}
