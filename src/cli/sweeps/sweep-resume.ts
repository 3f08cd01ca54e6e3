// `spica resume <id>`: a failed, terminated, timed-out or cancelled sweep continues in a NEW run of
// the same input. No workflow change is needed: the optimizer is deterministic given config+seed
// and every finished replay sits in the persistent result cache (keyed by ReplaySpec hash +
// simulator version), so the new run re-derives the same trials and the finished ones come from
// the cache instead of being replayed.
import { defaultPayloadConverter } from '@temporalio/common';
import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { MAX_RUNS, startUnderFreeId } from '../temporal/free-workflow-id.js';
import { InputError, TemporalUnavailable } from '../../errors.js';
import type { SweepInput, SweepOutcome } from '../../../workflows/sweep-types.js';
import { isResumable, RESUMABLE_STATUSES } from './sweep-outcome.js';
import { requireSweepType } from './sweep-status.js';

const RESUME_SUFFIX = /-resume-\d+$/;

/** Resuming a resumed run numbers on from the original id: `x-resume-1` → `x-resume-2`, not `x-resume-1-resume-1`. */
export function resumeBaseId(workflowId: string): string {
  return workflowId.replace(RESUME_SUFFIX, '');
}

export function resumeWorkflowId(baseId: string, n: number): string {
  return `${baseId}-resume-${n}`;
}

export interface ResumeSource {
  workflowId: string;
  runId: string;
  status: string;
  taskQueue: string;
  /** The old run's input, exactly as it was started (config object or {configYaml}). */
  input: SweepInput;
}

/** Describes the old run and reads its input from the first history event (WorkflowExecutionStarted). */
export async function resumeSource(client: Client, workflowId: string): Promise<ResumeSource> {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  requireSweepType(description.type, workflowId);
  const status = description.status.name;
  if (!isResumable(status)) {
    const why =
      status === 'RUNNING'
        ? 'it is still running (`spica status` shows its progress)'
        : status === 'COMPLETED'
          ? 'it completed (`spica result` shows its result)'
          : `its status is ${status}`;
    throw new InputError(`sweep ${workflowId} cannot be resumed: ${why}; only ${RESUMABLE_STATUSES.join(', ')} runs can`);
  }
  const history = await handle.fetchHistory();
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const payload = started?.input?.payloads?.[0];
  if (!payload) throw new TemporalUnavailable(`sweep ${workflowId}: the first history event carries no workflow input; cannot resume it`);
  // Spica clients and workers use the default data converter (no codec), so this is its inverse.
  const input = defaultPayloadConverter.fromPayload<SweepInput>(payload);
  return { workflowId, runId: description.runId, status, taskQueue: started?.taskQueue?.name ?? description.taskQueue, input };
}

/** Starts the new run under the first free `<base>-resume-<n>`; `eager` as for startSweep (own worker on the client's connection). */
export async function startResumedSweep(
  client: Client,
  source: ResumeSource,
  taskQueue: string = source.taskQueue,
  eager = false,
): Promise<WorkflowHandleWithFirstExecutionRunId<(input: SweepInput) => Promise<SweepOutcome>>> {
  const base = resumeBaseId(source.workflowId);
  const handle = await startUnderFreeId(
    client,
    (n) => resumeWorkflowId(base, n),
    (workflowId) =>
      client.workflow.start<(input: SweepInput) => Promise<SweepOutcome>>('sweep', {
        workflowId,
        taskQueue,
        args: [source.input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        requestEagerStart: eager,
      }),
  );
  if (handle) return handle;
  throw new TemporalUnavailable(`no free resume id after ${resumeWorkflowId(base, MAX_RUNS)}`);
}
