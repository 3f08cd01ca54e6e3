// `spica result <id>`: the SweepResult of a completed sweep run. A result too big for a workflow
// payload comes back as a reference into the result store and is read (and checksum-checked) here.
import type { Client } from '@temporalio/client';
import { InputError, TemporalUnavailable } from '../../errors.js';
import { SweepResultSchema, type SweepResult } from '../../search/sweepResult.js';
import { readStoredResult } from '../../../activities/result-store.js';
import { isStoredResult, type SweepOutcome } from '../../../workflows/sweep-types.js';
import { requireSweepType } from './sweep-status.js';

/** Statuses a new run can pick up from (`spica resume`). */
export const RESUMABLE_STATUSES = ['FAILED', 'TERMINATED', 'TIMED_OUT', 'CANCELLED'] as const;

export function isResumable(status: string): boolean {
  return (RESUMABLE_STATUSES as readonly string[]).includes(status);
}

/** Turns the workflow's return value into a validated SweepResult. */
export async function resolveSweepOutcome(outcome: SweepOutcome, workflowId: string): Promise<SweepResult> {
  let raw: unknown = outcome;
  if (isStoredResult(outcome)) {
    try {
      raw = await readStoredResult(outcome);
    } catch (err) {
      throw new TemporalUnavailable(`sweep ${workflowId}: ${(err as Error).message}`);
    }
  }
  const parsed = SweepResultSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new TemporalUnavailable(`sweep ${workflowId} returned something that is not a SweepResult v1 (${issues.join('; ')})`);
  }
  return parsed.data;
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
  if (status !== 'RUNNING' && status !== 'COMPLETED') {
    const hint = isResumable(status) ? `; \`spica resume ${workflowId}\` continues it without replaying finished trials` : '';
    throw new TemporalUnavailable(`sweep ${workflowId} has no result: its run ended ${status}${hint}`);
  }
  let outcome: SweepOutcome;
  try {
    outcome = await handle.result();
  } catch (err) {
    // A run we waited on that failed/terminated meanwhile.
    throw new TemporalUnavailable(`sweep ${workflowId} has no result: ${(err as Error).message}`);
  }
  return resolveSweepOutcome(outcome, workflowId);
}
