// `spica sweep` on Temporal: the `sweep` workflow run by an in-process worker that shares the client's
// native connection (eager start), its live progress, and `--detach`. Loaded only when a sweep runs
// on Temporal: `--local` never loads the Temporal SDK (~0.2 s of module loading on a 2-core box).
import { Client, ServiceError, WorkflowExecutionAlreadyStartedError, WorkflowFailedError } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { CommandIo } from '../command.js';
import type { SweepArgs } from '../commands/sweep.js';
import { InputError, TemporalUnavailable } from '../../errors.js';
import type { SmartSearchConfig } from '../../config/schema.js';
import { progressQuery, type sweep } from '../../../workflows/sweep.js';
import { splitOutcome, type SweepProgress } from '../../../workflows/sweep-types.js';
import { emitSweepResult } from './emit-result.js';
import { liveSweepProgress } from './live-progress.js';
import { resolveSweepOutcome } from './sweep-outcome.js';
import { sweepFailureError } from './sweep-failure.js';
import { connectClient, connectWorker } from '../temporal/client-connection.js';
import { firstFreeRun, MAX_RUNS, startUnderFreeId } from '../temporal/free-workflow-id.js';
import { openSweepTarget, registerSweepAttributes, requireSweepWorker } from '../temporal/sweep-session.js';
import { ProgressReporter } from '../temporal/sweep-progress.js';
import { whenAborted } from '../temporal/shutdown-signal.js';
import { defaultSweepWorkflowId, withRunSuffix } from '../temporal/workflow-id.js';
import { createSpicaWorker, spicaWorkflowBundle } from '../temporal/worker.js';

const PROGRESS_POLL_MS = 1000;

/**
 * Polls the `progress` query about once a second until `done` settles, then shows the final state:
 * `finalProgress` of what `done` gave (the progress the workflow's result carries), else — a run
 * recorded before results carried it, a failed run — one more query.
 */
export async function reportProgress<T>(
  client: Client,
  handle: { query: (q: typeof progressQuery) => Promise<SweepProgress> },
  io: CommandIo,
  done: Promise<T>,
  finalProgress: (settled: T) => SweepProgress | null = () => null,
): Promise<void> {
  const reporter = new ProgressReporter(io.stderr, io.isTty);
  let finished = false;
  void done.finally(() => (finished = true)).catch(() => undefined);
  while (!finished) {
    try {
      reporter.update(await liveSweepProgress(client, handle));
    } catch {
      // A query can fail transiently (no workflow task yet, worker restarting): try again next tick.
    }
    // The tick is cleared once `done` wins: a pending 1 s timer kept the process alive after the
    // result was printed (up to a second of the dense example's wall time).
    let tick: NodeJS.Timeout | undefined;
    await Promise.race([new Promise((r) => (tick = setTimeout(r, PROGRESS_POLL_MS))), done.catch(() => undefined)]);
    clearTimeout(tick);
  }
  const carried = await done.then(finalProgress, () => null);
  try {
    // The final state ('done', all trials): the query replays the closed workflow on this worker.
    reporter.update(carried ?? (await handle.query(progressQuery)));
  } catch {
    // the sweep failed or the worker is going away: the error is reported by the caller
  }
  reporter.finish();
}

/** `spica-<config hash>-<seed>` with run number n (1: no suffix). */
function sweepRunId(config: SmartSearchConfig): (n: number) => string {
  const base = defaultSweepWorkflowId(config, config.sweep.seed);
  return (n) => withRunSuffix(base, n);
}

/**
 * Starts the workflow under the first free id (explicit ids are never suffixed), trying run number
 * `firstFree` first when the caller looked it up (`firstFreeRun`).
 */
async function startSweep(client: Client, config: SmartSearchConfig, args: SweepArgs, eager: boolean, firstFree: Promise<number> | number = 1) {
  const start = (workflowId: string) =>
    client.workflow.start<typeof sweep>('sweep', {
      workflowId,
      taskQueue: args.taskQueue,
      args: [config],
      // A used id (running or closed) is never reused: each run keeps its own history.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      // Only with this process's own worker on a shared native connection (see runDurableSweep).
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

/** `spica sweep` without --local: the `sweep` workflow with an in-process worker, or --detach. */
export async function runDurableSweep(config: SmartSearchConfig, args: SweepArgs, io: CommandIo, signal: AbortSignal): Promise<number> {
  const { address, namespace, server } = await openSweepTarget({ address: args.address, namespace: args.namespace, detach: args.detach, io });

  if (args.detach) return runDetached(config, args, io, address, namespace);

  // The in-process worker and the client share one native connection: the server then hands the
  // sweep's first workflow task to this worker in its start response (eager start) instead of through
  // a poll. The bundle is read, the search attributes registered and the worker created side by side.
  //
  // Planning the sweep here, into the cache the plan activity reads, while the connection is being
  // made did not pay off (tried in f6dee8a, measured on 2 cores against the embedded server): the
  // connect takes ~15-30 ms and its completion waits for this thread, so the plan's CPU (~50-100 ms
  // for the MoE example under load) only moved ahead of the start — the start came ~100 ms later and
  // the first workflow task ~50-70 ms sooner; warming during the start RPC was worse still.
  void spicaWorkflowBundle().catch(() => undefined); // read while connecting; createSpicaWorker awaits it
  let spicaWorker: Awaited<ReturnType<typeof createSpicaWorker>> | undefined;
  let workflowId = args.id ?? '(not started)';
  let connection: NativeConnection | undefined;
  let ran = false;
  try {
    connection = await connectWorker(address);
    const client = new Client({ connection, namespace });
    // A rerun's number is looked up while the worker is created; on a lookup failure the start finds it.
    const firstFree = args.id === undefined ? firstFreeRun(client, sweepRunId(config)).catch(() => 1) : 1;
    [spicaWorker] = await Promise.all([
      createSpicaWorker({ address, namespace, taskQueue: args.taskQueue, workflowsOnMainThread: true, wavesHere: true, connection }),
      registerSweepAttributes(connection, namespace, io),
    ]);
    const handle = await startSweep(client, config, args, true, firstFree);
    workflowId = handle.workflowId;
    io.stderr(`workflow id: ${handle.workflowId}\n`);
    const worker = spicaWorker.worker;
    const finished = handle.result();
    ran = true;
    const outcome = await worker.runUntil(async () => {
      const race = Promise.race([
        finished.then((result) => ({ result })),
        whenAborted(signal).then(() => ({ interrupted: true as const })),
      ]);
      await reportProgress(client, handle, io, race, (o) => ('result' in o ? splitOutcome(o.result).progress : null));
      return race;
    });
    if ('interrupted' in outcome) {
      io.stderr(
        `interrupted; workflow ${handle.workflowId} stays on the server and resumes when a worker runs ` +
          `(\`spica server\` + \`spica worker\`)\n`,
      );
      return 130;
    }
    const result = await resolveSweepOutcome(outcome.result, handle.workflowId);
    return emitSweepResult(result, args, io);
  } catch (err) {
    if (err instanceof WorkflowFailedError) throw sweepFailureError(err, workflowId);
    // gRPC failures after connecting (server went away, permission denied, …) are Temporal failures.
    if (err instanceof ServiceError) throw new TemporalUnavailable(`Temporal call failed at ${address}: ${err.message}`);
    throw err;
  } finally {
    // A worker created but never run (the start failed, e.g. an --id already used) still holds the
    // connection, which then refuses to close and keeps the process alive: run it down first.
    if (spicaWorker && !ran) await spicaWorker.worker.runUntil(Promise.resolve()).catch(() => undefined);
    await spicaWorker?.close();
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
