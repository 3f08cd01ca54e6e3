// Starting the `sweep` workflow under its id: `--id` as given (never suffixed), else
// spica-<config hash>-<seed> with the first free run suffix.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { SweepArgs } from '../commands/sweep.js';
import { InputError, TemporalUnavailable } from '../../errors.js';
import type { SmartSearchConfig } from '../../config/schema.js';
import type { sweep } from '../../../workflows/sweep.js';
import { firstFreeRun, MAX_RUNS, startUnderFreeId } from '../temporal/free-workflow-id.js';
import { defaultSweepWorkflowId, withRunSuffix } from '../temporal/workflow-id.js';

/** `spica-<config hash>-<seed>` with run number n (1: no suffix). */
export function sweepRunId(config: SmartSearchConfig): (n: number) => string {
  const base = defaultSweepWorkflowId(config, config.sweep.seed);
  return (n) => withRunSuffix(base, n);
}

/**
 * Starts the workflow under the first free id (explicit ids are never suffixed), trying run number
 * `firstFree` first when the caller looked it up (`firstFreeRun`). `eager` only with this process's own
 * worker on the client's native connection: the server then hands it the first workflow task.
 */
export async function startSweep(client: Client, config: SmartSearchConfig, args: SweepArgs, eager: boolean, firstFree: Promise<number> | number = 1) {
  const start = (workflowId: string) =>
    client.workflow.start<typeof sweep>('sweep', {
      workflowId,
      taskQueue: args.taskQueue,
      args: [config],
      // A used id (running or closed) is never reused: each run keeps its own history.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      requestEagerStart: eager,
    });
  if (args.id !== undefined) {
    try {
      return await start(args.id);
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) throw new InputError(`workflow id '${args.id}' was already used; pick another --id`);
      throw err;
    }
  }
  const idFor = sweepRunId(config);
  const handle = await startUnderFreeId(client, idFor, start, MAX_RUNS, firstFree);
  if (!handle) throw new TemporalUnavailable(`no free workflow id after ${idFor(MAX_RUNS)}`);
  return handle;
}

/**
 * Looks up a rerun's first free number now (while the caller connects or creates its worker) and
 * returns the start that uses it; on a lookup failure the start finds the number itself.
 */
export function prepareSweepStart(client: Client, config: SmartSearchConfig, args: SweepArgs, eager: boolean): () => ReturnType<typeof startSweep> {
  const firstFree = args.id === undefined ? firstFreeRun(client, sweepRunId(config)).catch(() => 1) : 1;
  return () => startSweep(client, config, args, eager, firstFree);
}
