// `spica server`: run the embedded Temporal dev server described by temporal-dev.yaml until
// Ctrl-C, or reuse one already answering at that address; with a `spica worker` beside it in this
// process, so that a `spica sweep` finds a worker polling, warm, and hands its run over instead of
// loading the worker SDK and starting one of its own (issue 15: within 1.2× of `--local`, against
// ~1.3–1.6× with its own worker on the examples).
import { parseArgs } from 'node:util';
import type { Command, CommandIo } from '../command.js';
import { InputError, TemporalUnavailable } from '../../errors.js';
import { provisionTemporalCli } from '../temporal/cli-binary.js';
import { loadDevServerConfig, type DevServerConfig } from '../temporal/dev-config.js';
import { startDevServer } from '../temporal/dev-server.js';
import { defaultDevConfigPath } from '../temporal/project-paths.js';
import { processShutdownSignal, whenAborted } from '../temporal/shutdown-signal.js';
import { runWorker, WORKER_FLAGS, WORKER_FLAGS_USAGE, workerSettingsFromFlags, type WorkerRunOptions } from './worker.js';
import { requireUsableStore } from '../../store/select.js';
import { connectClient } from '../temporal/client-connection.js';
import { describePollers, hasSweepWorker } from '../temporal/task-queue.js';

const usage = `Usage: spica server [options]

Start the embedded Temporal dev server (temporal server start-dev) from temporal-dev.yaml and a
Spica worker beside it (what \`spica worker\` runs, in this process, on the server's namespace), and
keep both running until Ctrl-C (the worker finishes the tasks in hand, then the server stops).
\`spica sweep\` then hands its runs to that worker, already warm, instead of starting its own. If a
Temporal server already answers at the configured address it is reused: the command returns at
once if a worker polls the task queue there, else it runs the worker against that server.

Options:
  --config FILE   dev-server settings (default: temporal-dev.yaml in the repository)
  --ip IP         listen address (overrides the file)
  --port N        gRPC port (overrides the file; the UI uses --ui-port or port+1000)
  --ui-port N     Web UI port
  --headless      no Web UI
  --in-memory     no SQLite file: state is lost when the server stops
  --no-worker     only the Temporal server: sweeps then run their own worker, or \`spica worker\`s

The worker's options (as \`spica worker\`'s):
${WORKER_FLAGS_USAGE}
`;

export interface ServerRunOptions {
  config: DevServerConfig;
  /** Stops an owned server (and its worker) when aborted. */
  signal: AbortSignal;
  /** The worker run beside an owned server, or null (`--no-worker`). */
  worker: ServerWorker | null;
}

/** How the server's worker runs; its address and namespace are the server's. */
export type ServerWorker = Pick<WorkerRunOptions, 'taskQueue' | 'concurrency' | 'cacheDir'>;

function parsePort(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new InputError(`${flag} must be a port number, got '${value}'`);
  return n;
}

/** The dev server's settings and the worker's (null with --no-worker) from the command line. */
export function serverArgs(argv: string[]): { config: DevServerConfig; worker: ServerWorker | null } {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: 'string' },
      ip: { type: 'string' },
      port: { type: 'string' },
      'ui-port': { type: 'string' },
      headless: { type: 'boolean' },
      'in-memory': { type: 'boolean' },
      'no-worker': { type: 'boolean' },
      ...WORKER_FLAGS,
    },
    allowPositionals: false,
  });
  const noWorker = values['no-worker'] === true;
  const workerFlags = (Object.keys(WORKER_FLAGS) as (keyof typeof WORKER_FLAGS)[]).filter((f) => values[f] !== undefined);
  if (noWorker && workerFlags.length > 0) throw new InputError(`--no-worker runs no worker, so --${workerFlags[0]} has nothing to set; drop one of them`);
  const worker = noWorker ? null : workerSettingsFromFlags(values);
  const base = loadDevServerConfig(values.config ?? defaultDevConfigPath());
  const port = parsePort(values.port, '--port');
  const uiPort = parsePort(values['ui-port'], '--ui-port');
  const config: DevServerConfig = {
    ...base,
    ip: values.ip ?? base.ip,
    port: port ?? base.port,
    ui: values.headless
      ? { enabled: false }
      : { enabled: base.ui.enabled || uiPort !== undefined, port: uiPort ?? (port !== undefined ? undefined : base.ui.port) },
    db_filename: values['in-memory'] ? null : base.db_filename,
  };
  return { config, worker };
}

/** Runs (or reuses) the server, and its worker; resolves with the exit code once they stopped. */
export async function runServer(opts: ServerRunOptions, io: CommandIo): Promise<number> {
  // A worker that cannot reach its store would fail every task it takes: said before anything starts.
  if (opts.worker) await requireUsableStore();
  const cli = await provisionTemporalCli({ log: (l) => io.stderr(`provision: ${l}\n`) });
  const server = await startDevServer(opts.config, { cliPath: cli.path, onOutput: (t) => io.stderr(t) });
  for (const w of server.warnings) io.stderr(`warning: ${w}\n`);
  if (server.reused) {
    io.stdout(`${server.address}\n`);
    // Another `spica server` (or `spica worker`) already serves its task queue; a server left by a
    // killed sweep, or any other Temporal server, gets this command's worker.
    if (!opts.worker || (await sweepWorkerPolls(server.address, server.namespace, opts.worker.taskQueue))) {
      io.stderr(`A Temporal server is already running at ${server.address}; reusing it (nothing to start).\n`);
      return 0;
    }
    io.stderr(`A Temporal server is already running at ${server.address}; reusing it, with a worker beside it (none polls task queue '${opts.worker.taskQueue}').\n`);
    return runWorker({ ...opts.worker, address: server.address, namespace: server.namespace, signal: opts.signal }, io);
  }
  io.stderr(
    `Temporal dev server ready at ${server.address} (namespace ${server.namespace}` +
      `${opts.config.db_filename ? `, data ${opts.config.db_filename}` : ', in-memory'})\n` +
      (server.uiUrl ? `Web UI: ${server.uiUrl}\n` : '') +
      (opts.worker ? '' : 'Press Ctrl-C to stop.\n'),
  );
  io.stdout(`${server.address}\n`);
  // The worker stops on Ctrl-C, and when the server goes away under it (nothing left to poll).
  const stopWorker = new AbortController();
  let gone = false;
  const exited = server.exited.then((code) => {
    gone = true;
    stopWorker.abort();
    return code;
  });
  const stopping = whenAborted(opts.signal).then(() => {
    stopWorker.abort();
    return 'stop' as const;
  });
  try {
    if (opts.worker) await runWorker({ ...opts.worker, address: server.address, namespace: server.namespace, signal: stopWorker.signal }, io);
    const outcome = await Promise.race([stopping, exited]);
    if (outcome !== 'stop') throw new TemporalUnavailable(`the Temporal dev server exited unexpectedly (code ${outcome})`);
  } finally {
    if (!gone) {
      io.stderr('stopping the Temporal dev server…\n');
      await server.stop();
    }
  }
  return 0;
}

/** Whether a lasting worker (not a sweep's own) polls the task queue for workflows and activities. */
async function sweepWorkerPolls(address: string, namespace: string, taskQueue: string): Promise<boolean> {
  const connection = await connectClient(address);
  try {
    return hasSweepWorker(await describePollers(connection, namespace, taskQueue, { lasting: true }));
  } finally {
    await connection.close();
  }
}

export const command: Command = {
  name: 'server',
  summary: 'start the embedded Temporal dev server (temporal-dev.yaml) and a worker beside it',
  usage,
  async run(argv, io) {
    const { config, worker } = serverArgs(argv);
    const shutdown = processShutdownSignal();
    try {
      return await runServer({ config, worker, signal: shutdown.signal }, io);
    } finally {
      shutdown.dispose();
    }
  },
};
