// `spica worker`: a standalone worker polling the sweep task queue; scale out by running more.
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Command, CommandIo } from '../command.js';
import { InputError } from '../../errors.js';
import { replayPool } from '../../../activities/replay-pool.js';
import { requireUsableStore, spicaStore, STORE_OPTION_USAGE, useStoreFlag } from '../../store/select.js';
import { resolveTemporalTarget } from '../temporal/connection-target.js';
import { devServerAddress, loadDevServerConfig } from '../temporal/dev-config.js';
import { processShutdownSignal, whenAborted } from '../temporal/shutdown-signal.js';
import { spicaBuildId } from '../temporal/spica-build.js';
import { DEFAULT_TASK_QUEUE, describePollers, foreignList, untilListedAsPolling } from '../temporal/task-queue.js';
import { missingNamespace, missingNamespaceMessage } from '../temporal/namespace-not-found.js';

/** The flags that say how a worker runs: `spica worker`'s, and `spica server`'s for the worker it runs. */
export const WORKER_FLAGS = {
  'task-queue': { type: 'string' },
  concurrency: { type: 'string' },
  'cache-dir': { type: 'string' },
  store: { type: 'string' },
} as const;

/** Usage lines of WORKER_FLAGS. */
export const WORKER_FLAGS_USAGE = `  --task-queue NAME    task queue to poll (default '${DEFAULT_TASK_QUEUE}')
  --concurrency N      activity slots and replay worker threads (default: the machine's cores);
                       with other workers on the queue each replay of a wave is its own activity,
                       so this worker takes at most N of them at a time and the others the rest;
                       alone on the queue it replays the waves itself, N at a time
  --cache-dir DIR      persistent replay-result cache (default: SPICA_CACHE_DIR, else .spica/cache/)
${STORE_OPTION_USAGE}`;

const usage = `Usage: spica worker [options]

Run a Temporal worker for Spica's workflows and activities until Ctrl-C (then it finishes the
tasks in hand and exits). Without an address it connects to the embedded server of
temporal-dev.yaml (start it with \`spica server\`, which runs a worker of its own: add workers on
other machines, or for another task queue; a second one on the same cores only splits them, and
the waves then become activities through the server instead of replays in place). Before it
polls it runs two small sweeps in-process (~0.8 s, nothing cached or stored), so the first sweep
it takes does not pay first-time compilation.

Options:
  --address HOST:PORT  Temporal frontend (default: TEMPORAL_ADDRESS, the temporal.toml profile, or temporal-dev.yaml)
  --namespace NAME     namespace (default: TEMPORAL_NAMESPACE, the profile, or 'default')
${WORKER_FLAGS_USAGE}

Each replay runs on a worker thread; one past the sweep's max_eval_seconds is terminated and
becomes a timed_out trial; one over its heap cap (SPICA_REPLAY_HEAP_MB, default 4096) fails only
that trial. Finished replays are cached by ReplaySpec hash + simulator version. Test hooks (only with SPICA_TEST_HOOKS=1): SPICA_TEST_HANG_MATCH=S makes
every candidate whose canonical JSON contains S spin forever; SPICA_TEST_OOM_MATCH=S makes it
exhaust its thread's heap; SPICA_TEST_PAUSE_IN=plan,ask,materialize,replay,report makes this worker
stop inside those activities (it prints "spica test hook: paused in <kind>") until it is killed.
`;

export interface WorkerRunOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  concurrency?: number;
  cacheDir?: string;
  signal: AbortSignal;
}

export async function runWorker(opts: WorkerRunOptions, io: CommandIo): Promise<number> {
  // The worker SDK and its native library load here, not with the command: \`spica worker --help\` needs neither.
  const [{ createSpicaWorker, installQuietRuntime }, { connectWorker }, { warmUpWorker }] = await Promise.all([
    import('../temporal/worker.js'),
    import('../temporal/worker-connection.js'),
    import('../temporal/worker-warm-up.js'),
  ]);
  await requireUsableStore(); // a worker that cannot reach its store would fail every task it takes
  installQuietRuntime();
  const connection = await connectWorker(opts.address);
  // Before the worker: one created for a namespace the server lacks fails only once it runs, and its
  // shutdown then kept the process alive. (Any other failure to describe it is left to the worker.)
  const missing = await connection.workflowService.describeNamespace({ namespace: opts.namespace }).then(() => null, missingNamespace);
  if (missing !== null) {
    await connection.close();
    throw new InputError(missingNamespaceMessage(missing));
  }
  // Alone on the task queue it replays each wave itself (no server round trips per replay); as soon as
  // another worker polls, the waves are replay activities again and every worker takes a share.
  const spica = await createSpicaWorker({ ...opts, connection, wavesHere: true });
  // Before it polls, so that the first sweep handed to it finds its code warm (worker-warm-up.ts).
  const warmUpMs = await warmUpWorker();
  // Sweeps refuse a task queue that workers of two builds, or two stores, poll (task-queue.ts
  // requireOwnBuildAndStore): say so now.
  const pollers = await describePollers(connection, opts.namespace, opts.taskQueue).catch(() => null);
  if (pollers && pollers.foreign.length > 0) {
    io.stderr(
      `warning: task queue '${opts.taskQueue}' is also polled by worker(s) of another Spica build: ${foreignList(pollers.foreign)}; ` +
        `sweeps refuse to run there until only one build polls\n`,
    );
  }
  if (pollers && pollers.otherStores.length > 0) {
    io.stderr(
      `warning: task queue '${opts.taskQueue}' is also polled by worker(s) of another store: ${pollers.otherStores.map((p) => p.identity).join(', ')}; ` +
        `sweeps refuse to run there until all its workers use one store\n`,
    );
  }
  const stopping = whenAborted(opts.signal).then(() => {
    io.stderr('worker shutting down (finishing tasks in hand)…\n');
    spica.worker.shutdown();
  });
  const running = spica.worker.run();
  // The ready line, which scripts and tests wait for, once the server lists this worker: a sweep
  // started on seeing it is then handed to it. Not after a Ctrl-C: this worker then stops without polling.
  if (!opts.signal.aborted) await Promise.race([untilListedAsPolling(connection, opts.namespace, opts.taskQueue, spica.identity), running.catch(() => undefined)]);
  if (!opts.signal.aborted) {
    io.stderr(
      `worker polling task queue '${opts.taskQueue}' on ${opts.address} (namespace ${opts.namespace}); ` +
        `build ${spicaBuildId()}, ${replayPool().size} replay threads, store ${spicaStore().describe()}` +
        `${warmUpMs === null ? '' : `, warmed up in ${(warmUpMs / 1000).toFixed(1)} s`}; Ctrl-C to stop\n`,
    );
  }
  try {
    await running;
  } finally {
    await connection.close();
  }
  void stopping;
  return 0;
}

/** A worker's settings from WORKER_FLAGS' values (`--store` takes effect for this process). */
export function workerSettingsFromFlags(values: { 'task-queue'?: string; concurrency?: string; 'cache-dir'?: string; store?: string }): Pick<WorkerRunOptions, 'taskQueue' | 'concurrency' | 'cacheDir'> {
  useStoreFlag(values.store);
  let concurrency: number | undefined;
  if (values.concurrency !== undefined) {
    concurrency = Number(values.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new InputError(`--concurrency must be a positive integer, got '${values.concurrency}'`);
    }
  }
  return { taskQueue: values['task-queue'] ?? DEFAULT_TASK_QUEUE, concurrency, cacheDir: values['cache-dir'] && path.resolve(values['cache-dir']) };
}

export const command: Command = {
  name: 'worker',
  summary: 'run a standalone Temporal worker',
  usage,
  async run(argv, io) {
    const { values } = parseArgs({
      args: argv,
      options: { address: { type: 'string' }, namespace: { type: 'string' }, ...WORKER_FLAGS },
      allowPositionals: false,
    });
    const settings = workerSettingsFromFlags(values);
    const target = resolveTemporalTarget({ address: values.address, namespace: values.namespace });
    const address = target.address ?? devServerAddress(loadDevServerConfig());
    const shutdown = processShutdownSignal();
    try {
      return await runWorker({ address, namespace: target.namespace, ...settings, signal: shutdown.signal }, io);
    } finally {
      shutdown.dispose();
    }
  },
};
