// `spica sweep` on Temporal: who runs the `sweep` workflow. Workers already polling the task queue
// (`spica worker`) take the run and this process follows it (handed-over-sweep.ts, no worker SDK
// loaded); with none, this process runs its own worker (in-process-sweep.ts); `--detach` only starts
// it. Loaded only when a sweep runs on Temporal: `--local` never loads the Temporal SDK.
import { Client, ServiceError, WorkflowFailedError, type Connection } from '@temporalio/client';
import type { CommandIo } from '../command.js';
import type { SweepArgs } from '../commands/sweep.js';
import { TemporalUnavailable } from '../../errors.js';
import { requireUsableStore } from '../../store/select.js';
import type { SmartSearchConfig } from '../../config/schema.js';
import { resumeCanFix, sweepFailureError } from './sweep-failure.js';
import { startSweep } from './sweep-start.js';
import { connectClient } from '../temporal/client-connection.js';
import { openSweepTarget, registerSweepAttributes, requireSweepWorker } from '../temporal/sweep-session.js';
import { describePollers, hasSweepWorker, requireOwnBuildAndStore } from '../temporal/task-queue.js';

const NOT_STARTED = '(not started)';

/** `spica sweep` without --local. */
export async function runDurableSweep(config: SmartSearchConfig, args: SweepArgs, io: CommandIo, signal: AbortSignal): Promise<number> {
  await requireUsableStore(); // a wrong --store is said now, not after the run's activities retried it
  const { address, namespace, server } = await openSweepTarget({ address: args.address, namespace: args.namespace, detach: args.detach, io });
  if (args.detach) return runDetached(config, args, io, address, namespace);
  const target = { address, namespace, taskQueue: args.taskQueue };
  let workflowId = NOT_STARTED;
  const started = (id: string) => (workflowId = id);
  let connection: Connection | undefined;
  try {
    // A server this process just started has no workers yet: no need to ask.
    if (!server || server.reused) {
      connection = await connectClient(address);
      const pollers = await describePollers(connection, namespace, args.taskQueue, { lasting: true });
      requireOwnBuildAndStore(pollers, args.taskQueue);
      if (hasSweepWorker(pollers)) {
        const { runOnPollingWorkers } = await import('./handed-over-sweep.js');
        return await runOnPollingWorkers(config, args, io, signal, { ...target, connection, workers: pollers.workflowPollers }, started);
      }
      await connection.close();
      connection = undefined;
    }
    const { runInProcessSweep } = await import('./in-process-sweep.js');
    return await runInProcessSweep(config, args, io, signal, target, started);
  } catch (err) {
    if (err instanceof WorkflowFailedError) {
      const id = workflowId === NOT_STARTED ? (args.id ?? workflowId) : workflowId;
      const failure = sweepFailureError(err, id);
      // Not bad input (that fails again): an outage outlasted the retries, say; the trials stay.
      throw resumeCanFix(err) ? new TemporalUnavailable(`${failure.message}; \`spica resume ${id}\` continues it without replaying finished trials`) : failure;
    }
    // gRPC failures after connecting (server went away, permission denied, …) are Temporal failures;
    // a run already started is not lost with this process: say where it is.
    if (err instanceof ServiceError) {
      const run = workflowId === NOT_STARTED ? '' : `; the run ${workflowId} stays on the server (unless it keeps no state) and goes on once the server and a worker run again: \`spica status ${workflowId}\``;
      throw new TemporalUnavailable(`Temporal call failed at ${address}: ${err.message}${run}`);
    }
    throw err;
  } finally {
    await connection?.close();
    await server?.stop();
  }
}

/** `--detach`: start the run for the workers already polling its task queue and return its id. */
async function runDetached(config: SmartSearchConfig, args: SweepArgs, io: CommandIo, address: string, namespace: string): Promise<number> {
  const connection = await connectClient(address);
  try {
    await registerSweepAttributes(connection, namespace, io);
    await requireSweepWorker(connection, namespace, args.taskQueue, address);
    const handle = await startSweep(new Client({ connection, namespace }), config, args, false);
    io.stderr(`workflow id: ${handle.workflowId}\n`);
    io.stdout(args.json ? `${JSON.stringify({ workflowId: handle.workflowId, runId: handle.firstExecutionRunId })}\n` : `${handle.workflowId}\n`);
    return 0;
  } catch (err) {
    if (err instanceof ServiceError) throw new TemporalUnavailable(`Temporal call failed at ${address}: ${err.message}`);
    throw err;
  } finally {
    await connection.close();
  }
}
