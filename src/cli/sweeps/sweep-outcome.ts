// `spica result <id>`: the SweepResult of a completed sweep run. A result too big for a workflow
// payload comes back as a reference into the result store and is read (and checksum-checked) here.
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { InputError, TemporalUnavailable } from '../../errors.js';
import { SweepResultSchema, type SweepResult } from '../../search/sweepResult.js';
import { readStoredResult } from '../../../activities/result-store.js';
import { isStoredResult, splitOutcome, type SweepOutcome } from '../../../workflows/sweep-types.js';
import { sweepFailureError, resumeCanFix } from './sweep-failure.js';
import { requireSweepType } from './sweep-status.js';

/** Statuses a new run can pick up from (`spica resume`). */
export const RESUMABLE_STATUSES = ['FAILED', 'TERMINATED', 'TIMED_OUT', 'CANCELLED'] as const;

export function isResumable(status: string): boolean {
  return (RESUMABLE_STATUSES as readonly string[]).includes(status);
}

/** Turns the workflow's return value into a validated SweepResult (its final progress left out). */
export async function resolveSweepOutcome(value: SweepOutcome, workflowId: string): Promise<SweepResult> {
  const { outcome } = splitOutcome(value);
  let raw: unknown = outcome;
  if (isStoredResult(outcome)) {
    try {
      raw = await readStoredResult(outcome);
    } catch (err) {
      throw new TemporalUnavailable(`sweep ${workflowId}: ${(err as Error).message}`);
    }
  }
  // One parse per process: zod's JIT (compiling the schema's object checks with `new Function` on first
  // use) costs more than it saves here (dense example ~25-35 ms against ~9-16 ms jitless, measured
  // on a loaded 2-core box); the checks are the same.
  const parsed = SweepResultSchema.safeParse(raw, { jitless: true });
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new TemporalUnavailable(`sweep ${workflowId} returned something that is not a SweepResult v1 (${issues.join('; ')})`);
  }
  return parsed.data;
}

/**
 * After a Ctrl-C: the run's return value when it had completed already (the interrupt fell between its
 * end and this process reading the result), so the user gets the result rather than word that the run
 * goes on; null when it did not complete (still running, or ended otherwise).
 */
export async function completedMeanwhile<T>(handle: { describe(): Promise<{ status: { name: string } }> }, finished: Promise<T>): Promise<T | null> {
  const status = await handle.describe().then(
    (d) => d.status.name,
    () => null,
  );
  return status === 'COMPLETED' ? finished : null;
}

/**
 * What this process says after a Ctrl-C: the run's return value if it had completed meanwhile (with a
 * line saying the result follows), else null after `goesOn`, the line saying where the run continues.
 */
export async function afterInterrupt<T>(
  handle: { workflowId: string; describe(): Promise<{ status: { name: string } }> },
  finished: Promise<T>,
  io: { stderr: (text: string) => void },
  goesOn: string,
): Promise<T | null> {
  const value = await completedMeanwhile(handle, finished);
  io.stderr(value === null ? `interrupted; workflow ${handle.workflowId} ${goesOn}\n` : `interrupted, but workflow ${handle.workflowId} had completed: its result follows\n`);
  return value;
}

export interface FetchOptions {
  /** Wait for a running sweep to finish instead of failing with exit 2. */
  wait?: boolean;
}

export async function fetchSweepResult(client: Client, workflowId: string, opts: FetchOptions = {}): Promise<SweepResult> {
  const handle = client.workflow.getHandle<(input: unknown) => Promise<SweepOutcome>>(workflowId);
  const description = await handle.describe();
  requireSweepType(description.type, workflowId);
  const status = description.status.name;
  if (status === 'RUNNING' && !opts.wait) {
    throw new InputError(`sweep ${workflowId} is still running; \`spica status ${workflowId}\` shows its progress, \`spica result ${workflowId} --wait\` waits for it`);
  }
  let outcome: SweepOutcome;
  try {
    outcome = await handle.result();
  } catch (err) {
    // Failed, terminated, … (or failed meanwhile while we waited): say why, and suggest a resume
    // only when one can help — a run that failed on bad input would fail the same way again.
    throw noResultError(err, workflowId, status === 'RUNNING' ? (await handle.describe()).status.name : status);
  }
  return resolveSweepOutcome(outcome, workflowId);
}

function noResultError(err: unknown, workflowId: string, status: string): Error {
  if (!resumeCanFix(err)) {
    const failure = sweepFailureError(err, workflowId);
    return new InputError(`${failure.message}; fix the input and start a new sweep (a resume would fail the same way)`);
  }
  const hint = isResumable(status) ? `; \`spica resume ${workflowId}\` continues it without replaying finished trials` : '';
  const why = err instanceof WorkflowFailedError ? sweepFailureError(err, workflowId).message.replace(`sweep ${workflowId} failed: `, '') : (err as Error).message;
  return new TemporalUnavailable(`sweep ${workflowId} has no result: its run ended ${status} (${why})${hint}`);
}
