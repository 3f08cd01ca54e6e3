// `spica sweep` (and `spica resume`) with its own worker: the `sweep` workflow run by a worker in this
// process that shares the client's native connection (eager start). Loaded only when no other worker
// polls the task queue (durable-sweep.ts, resume.ts), or when the workers a run was handed to are gone
// (handed-over-sweep.ts): it loads the worker SDK and its native library.
import { Client, type WorkflowHandle } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { CommandIo } from '../command.js';
import type { SweepArgs } from '../commands/sweep.js';
import type { SmartSearchConfig } from '../../config/schema.js';
import type { SweepResult } from '../../search/sweepResult.js';
import type { sweep } from '../../../workflows/sweep.js';
import { emitSweepResult } from './emit-result.js';
import { reportProgress } from './progress-report.js';
import { afterInterrupt, resolveSweepOutcome } from './sweep-outcome.js';
import { prepareSweepStart } from './sweep-start.js';
import { registerSweepAttributes } from '../temporal/sweep-session.js';
import { whenAborted } from '../temporal/shutdown-signal.js';
import { createSpicaWorker, installQuietRuntime, spicaWorkflowBundle } from '../temporal/worker.js';
import { connectWorker } from '../temporal/worker-connection.js';

/** Where this process's worker polls. */
export interface WorkerTarget {
  address: string;
  namespace: string;
  taskQueue: string;
}

/** The in-process worker: workflows on this thread, waves replayed here while no other worker polls. */
function inProcessWorker(target: WorkerTarget, connection: NativeConnection) {
  // Marked as a sweep's own worker: a later `spica sweep` must not hand its run to a worker that stops
  // when this sweep does (task-queue.ts).
  return createSpicaWorker({ ...target, workflowsOnMainThread: true, wavesHere: true, connection, sweepWorker: true });
}

/**
 * How a run starts on this process's worker: given the client (on the worker's connection) as soon as
 * it exists, so that lookups run while the worker is created; returns the start itself, called once
 * the worker exists. A start on that client may ask for eager start.
 */
export type OwnWorkerStart = (client: Client) => () => Promise<WorkflowHandle<typeof sweep>>;

/** `spica sweep` with its own worker: exit code, or 130 when interrupted. */
export async function runInProcessSweep(
  config: SmartSearchConfig,
  args: SweepArgs,
  io: CommandIo,
  signal: AbortSignal,
  target: WorkerTarget,
  onStarted: (workflowId: string) => void,
): Promise<number> {
  // A rerun's number is looked up while the worker is created.
  const outcome = await runOnOwnWorker(target, io, signal, onStarted, (client) => prepareSweepStart(client, config, args, true));
  return 'interrupted' in outcome ? 130 : emitSweepResult(outcome.result, args, io);
}

/**
 * Starts a run (`spica sweep`, `spica resume`) and works on it with a worker of this process until it
 * ends, showing its progress: its SweepResult, or `interrupted` on Ctrl-C (the run stays on the server).
 */
export async function runOnOwnWorker(
  target: WorkerTarget,
  io: CommandIo,
  signal: AbortSignal,
  onStarted: (workflowId: string) => void,
  prepareStart: OwnWorkerStart,
): Promise<{ result: SweepResult } | { interrupted: true }> {
  // The in-process worker and the client share one native connection: the server then hands the
  // run's first workflow task to this worker in its start response (eager start) instead of through
  // a poll. The bundle is read, the search attributes registered and the worker created side by side.
  //
  // Planning the sweep here, into the cache the plan activity reads, while the connection is being
  // made did not pay off (tried in f6dee8a, measured on 2 cores against the embedded server): the
  // connect takes ~15-30 ms and its completion waits for this thread, so the plan's CPU (~50-100 ms
  // for the MoE example under load) only moved ahead of the start — the start came ~100 ms later and
  // the first workflow task ~50-70 ms sooner; warming during the start RPC was worse still.
  void spicaWorkflowBundle().catch(() => undefined); // read while connecting; createSpicaWorker awaits it
  let spicaWorker: Awaited<ReturnType<typeof createSpicaWorker>> | undefined;
  let connection: NativeConnection | undefined;
  let ran = false;
  try {
    connection = await connectWorker(target.address);
    const client = new Client({ connection, namespace: target.namespace });
    const start = prepareStart(client);
    [spicaWorker] = await Promise.all([inProcessWorker(target, connection), registerSweepAttributes(connection, target.namespace, io)]);
    const handle = await start();
    onStarted(handle.workflowId);
    io.stderr(`workflow id: ${handle.workflowId}\n`);
    const finished = handle.result();
    ran = true;
    const stopping = noticeSlowStop(signal, io);
    const outcome = await spicaWorker.worker
      .runUntil(async () => {
        const race = Promise.race([
          finished.then((result) => ({ result })),
          whenAborted(signal).then(() => ({ interrupted: true as const })),
        ]);
        await reportProgress(client, handle, io, race);
        return race;
      })
      .finally(stopping.dispose);
    if ('interrupted' in outcome) {
      const value = await afterInterrupt(handle, finished, io, 'stays on the server and resumes when a worker runs (`spica server` runs one beside the embedded server; or `spica worker`)');
      return value === null ? outcome : { result: await resolveSweepOutcome(value, handle.workflowId) };
    }
    return { result: await resolveSweepOutcome(outcome.result, handle.workflowId) };
  } finally {
    // A worker created but never run (the start failed, e.g. an --id already used) still holds the
    // connection, which then refuses to close and keeps the process alive: run it down first.
    if (spicaWorker && !ran) await spicaWorker.worker.runUntil(Promise.resolve()).catch(() => undefined);
    await spicaWorker?.close();
    await connection?.close();
  }
}

/** After a Ctrl-C, how long the worker may drain before this process says what it waits for. */
const STOP_NOTICE_MS = 1_000;

/**
 * Once `signal` aborts, says so if the worker has not stopped within STOP_NOTICE_MS: it finishes the
 * task in hand first — usually at once, but a local activity retrying against a store that is down
 * holds it for minutes — and a second Ctrl-C (no handler left: node's default) quits at once.
 */
function noticeSlowStop(signal: AbortSignal, io: CommandIo): { dispose: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const onAbort = () => {
    timer = setTimeout(
      () => io.stderr("interrupted: this process's worker finishes the task in hand before it stops (the run stays on the server); Ctrl-C again to quit now\n"),
      STOP_NOTICE_MS,
    );
  };
  signal.addEventListener('abort', onAbort, { once: true });
  return {
    dispose: () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    },
  };
}

/** Runs this process's worker on the task queue until `done` settles (a handed-over run's take-over). */
export async function runWorkerUntil(target: WorkerTarget, done: Promise<unknown>): Promise<void> {
  installQuietRuntime(); // before the connection creates the SDK's runtime with its INFO-level logger
  const connection = await connectWorker(target.address);
  try {
    const spicaWorker = await inProcessWorker(target, connection);
    try {
      await spicaWorker.worker.runUntil(done.catch(() => undefined));
    } finally {
      await spicaWorker.close();
    }
  } finally {
    await connection.close();
  }
}
