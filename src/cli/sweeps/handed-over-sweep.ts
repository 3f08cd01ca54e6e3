// `spica sweep` (and `spica resume`) when workers already poll the task queue (`spica worker` on this
// machine or others): the run is theirs. This process starts it, shows its progress and prints its result, with no worker
// of its own: it loads no worker SDK (~0.35 s of a short sweep on a 2-core box) and the replays run on
// workers whose replay threads are already up. Should every worker go away before the run ends, this
// process starts its own and carries the run to its end: a run is never left waiting for nobody.
import { Client, type Connection, type WorkflowHandle } from '@temporalio/client';
import type { CommandIo } from '../command.js';
import type { SweepArgs } from '../commands/sweep.js';
import type { SmartSearchConfig } from '../../config/schema.js';
import { SIMULATOR_VERSION } from '../../replay/report.js';
import type { SweepResult } from '../../search/sweepResult.js';
import type { sweep } from '../../../workflows/sweep.js';
import { emitSweepResult } from './emit-result.js';
import type { WorkerTarget } from './in-process-sweep.js';
import { reportProgress } from './progress-report.js';
import { afterInterrupt, resolveSweepOutcome } from './sweep-outcome.js';
import { prepareSweepStart } from './sweep-start.js';
import { registerSweepAttributes } from '../temporal/sweep-session.js';
import { whenAborted } from '../temporal/shutdown-signal.js';
import { describePollers, hasSweepWorker } from '../temporal/task-queue.js';
import { scheduledWorkflowTasks, STALLED_TASK_MS, WorkflowTaskWatch } from '../temporal/waiting-workflow-tasks.js';

/** How often this process looks whether the run still has a worker (the first look comes after a second). */
const WATCH_MS = 5_000;
const FIRST_LOOK_MS = 1_000;
/** Looks in a row that found none before this process runs a worker itself (a worker restarting is not gone). */
const MISSES_BEFORE_TAKEOVER = 2;

/** Where the run was handed: the task queue its workers poll, over this client connection. */
export type HandOverTarget = WorkerTarget & { connection: Connection; workers: number };

/** Starts the run for the polling workers and follows it to its end; `sweep` exit code, or 130 when interrupted. */
export async function runOnPollingWorkers(
  config: SmartSearchConfig,
  args: SweepArgs,
  io: CommandIo,
  signal: AbortSignal,
  target: HandOverTarget,
  onStarted: (workflowId: string) => void,
): Promise<number> {
  const client = new Client({ connection: target.connection, namespace: target.namespace });
  const start = prepareSweepStart(client, config, args, false);
  await registerSweepAttributes(target.connection, target.namespace, io);
  const handle = await start();
  onStarted(handle.workflowId);
  io.stderr(`workflow id: ${handle.workflowId}\n`);
  const outcome = await followHandedOverRun(client, handle, io, signal, target);
  return 'interrupted' in outcome ? 130 : emitSweepResult(outcome.result, args, io);
}

/**
 * Follows a run started for the polling workers (`spica sweep`, `spica resume`): its progress on
 * stderr, a worker of this process should they all go away, and its SweepResult — or `interrupted`
 * on Ctrl-C, which leaves the run to the workers.
 */
export async function followHandedOverRun(
  client: Client,
  handle: WorkflowHandle<typeof sweep>,
  io: CommandIo,
  signal: AbortSignal,
  target: HandOverTarget,
): Promise<{ result: SweepResult } | { interrupted: true }> {
  io.stderr(`run by the worker(s) polling task queue '${target.taskQueue}' (${target.workers} seen)\n`);
  const finished = handle.result();
  const settled = Promise.race([
    finished.then((result) => ({ result })),
    whenAborted(signal).then(() => ({ interrupted: true as const })),
  ]);
  const keeper = keepAWorker(target, handle.workflowId, settled, io);
  try {
    await reportProgress(client, handle, io, settled);
    let outcome = await settled;
    if ('interrupted' in outcome) {
      const goesOn =
        `keeps running on the workers of task queue '${target.taskQueue}': ` +
        `\`spica status ${handle.workflowId}\` shows it, \`spica result ${handle.workflowId}\` prints its result`;
      const value = await afterInterrupt(handle, finished, io, goesOn);
      if (value === null) return outcome;
      outcome = { result: value };
    }
    const result = await resolveSweepOutcome(outcome.result, handle.workflowId);
    // The run was handed to workers of this build (task-queue.ts requireOwnBuildAndStore), but one of another
    // build may have joined since: say so when the simulator that replayed is not this one's.
    if (result.simulator_version !== SIMULATOR_VERSION) {
      io.stderr(`warning: the workers replayed with simulator ${result.simulator_version}, this checkout has ${SIMULATOR_VERSION}; restart them to use it\n`);
    }
    return { result };
  } finally {
    await keeper;
  }
}

/**
 * Until `settled` settles: if no worker takes the run's tasks any more, run one here until then. No
 * worker: none listed as polling in two looks in a row, or a workflow task of the run left unstarted
 * for STALLED_TASK_MS although some are listed (stopped ones the server still lists: on another
 * machine, up to POLLER_LIVE_MS after their last poll).
 */
async function keepAWorker(target: WorkerTarget & { connection: Connection }, workflowId: string, settled: Promise<unknown>, io: CommandIo): Promise<void> {
  let over = false;
  const end = settled.then(
    () => (over = true),
    () => (over = true),
  );
  const watch = new WorkflowTaskWatch();
  for (let misses = 0, looks = 0; ; looks++) {
    let tick: NodeJS.Timeout | undefined;
    await Promise.race([new Promise((r) => (tick = setTimeout(r, looks === 0 ? FIRST_LOOK_MS : WATCH_MS))), end]);
    clearTimeout(tick);
    if (over) return;
    // A failed look (the server unreachable a moment) is not a missing worker.
    const [polling, waiting] = await Promise.all([
      describePollers(target.connection, target.namespace, target.taskQueue, { lasting: true }).then(hasSweepWorker, () => true),
      scheduledWorkflowTasks(target.connection, target.namespace, workflowId).catch(() => []),
    ]);
    const stalled = watch.observe(waiting, Date.now()) >= STALLED_TASK_MS;
    misses = polling ? 0 : misses + 1;
    if ((misses < MISSES_BEFORE_TAKEOVER && !stalled) || over) continue;
    io.stderr(
      polling
        ? `no worker took a workflow task of this run for ${STALLED_TASK_MS / 1000} s although the server lists worker(s) on task queue '${target.taskQueue}' (stopped ones stay listed for a while): this process runs one until the sweep ends\n`
        : `no worker polls task queue '${target.taskQueue}' any more: this process runs one until the sweep ends\n`,
    );
    try {
      const { runWorkerUntil } = await import('./in-process-sweep.js');
      await runWorkerUntil({ address: target.address, namespace: target.namespace, taskQueue: target.taskQueue }, settled);
    } catch (err) {
      io.stderr(`could not run a worker here (${(err as Error).message}); the run waits for one on task queue '${target.taskQueue}'\n`);
    }
    return;
  }
}
