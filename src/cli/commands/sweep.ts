// `spica sweep <config>`: run the `sweep` workflow. With no Temporal address configured it starts
// the embedded dev server (SQLite under .spica/) and an in-process worker; with an address it uses
// that server (plus an in-process worker unless --detach). `--local` runs the same sweep in this
// process without any server.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, ServiceError, WorkflowExecutionAlreadyStartedError, WorkflowFailedError } from '@temporalio/client';
import type { Command, CommandIo } from '../command.js';
import { InputError, TemporalUnavailable } from '../../errors.js';
import { loadConfigFile } from '../../config/load.js';
import type { SmartSearchConfig } from '../../config/schema.js';
import { progressQuery, type sweep } from '../../../workflows/sweep.js';
import { splitOutcome, type SweepOutcome, type SweepProgress } from '../../../workflows/sweep-types.js';
import { runLocalSweep } from '../../../activities/local-sweep.js';
import type { SweepResult } from '../../search/sweepResult.js';
import { writeResultFiles } from '../../results/files.js';
import { resolveSweepOutcome } from '../sweeps/sweep-outcome.js';
import { sweepFailureError } from '../sweeps/sweep-failure.js';
import { ProgressReporter } from '../temporal/sweep-progress.js';
import { connectClient, connectWorker } from '../temporal/client-connection.js';
import type { NativeConnection } from '@temporalio/worker';
import { liveSweepProgress } from '../sweeps/live-progress.js';
import { openSweepTarget, registerSweepAttributes, requireSweepWorker } from '../temporal/sweep-session.js';
import { processShutdownSignal, whenAborted } from '../temporal/shutdown-signal.js';
import { formatSweepResult } from '../temporal/sweep-summary.js';
import { defaultSweepWorkflowId, withRunSuffix } from '../temporal/workflow-id.js';
import { MAX_RUNS, startUnderFreeId } from '../temporal/free-workflow-id.js';
import { createSpicaWorker, DEFAULT_TASK_QUEUE, spicaWorkflowBundle } from '../temporal/worker.js';

import { STORE_OPTION_USAGE, useStoreFlag } from '../../store/select.js';
const usage = `Usage: spica sweep <config.yaml> [options]

Run a sweep as the Temporal workflow 'sweep'. The workflow id goes to stderr, the result to stdout.

Where it runs: --address, else TEMPORAL_ADDRESS, else the default profile of
~/.config/temporalio/temporal.toml; with none of these Spica starts its embedded dev server
(temporal-dev.yaml, SQLite under .spica/) and an in-process worker for the duration of the sweep.

Workflow id: --id, or spica-<first 12 hex of sha256 of the canonical config JSON>-<seed>; if that id
was already used on the server, the first free suffix -2, -3, … is appended.

Options:
  --address HOST:PORT  Temporal frontend
  --namespace NAME     namespace (default: TEMPORAL_NAMESPACE, the profile, or 'default')
  --id ID              workflow id
  --task-queue NAME    task queue (default '${DEFAULT_TASK_QUEUE}')
  --detach             start and return at once, printing the id on stdout; needs a reachable
                       server with a worker polling the task queue (\`spica server\`, \`spica worker\`)
  --local              run the sweep in this process without Temporal (same result, not durable)
  --json               print the SweepResult as one JSON document
  --out DIR            also write the result files (result.json, candidates.csv, report.html)
${STORE_OPTION_USAGE}

Progress (trials, best score, ETA) goes to stderr: a live bar on a terminal, plain lines otherwise.
Exit code 1 when the sweep ran but found no feasible candidate.
`;

interface SweepArgs {
  configPath: string;
  address?: string;
  namespace?: string;
  id?: string;
  taskQueue: string;
  detach: boolean;
  local: boolean;
  json: boolean;
  out?: string;
}

function parseSweepArgs(argv: string[]): SweepArgs {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      address: { type: 'string' },
      namespace: { type: 'string' },
      id: { type: 'string' },
      'task-queue': { type: 'string' },
      detach: { type: 'boolean', default: false },
      local: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      out: { type: 'string' },
      store: { type: 'string' },
    },
    allowPositionals: true,
  });
  useStoreFlag(values.store);
  if (positionals.length !== 1) {
    throw new InputError(`expected exactly one config file, got ${positionals.length} (see \`spica sweep --help\`)`);
  }
  return {
    configPath: positionals[0],
    address: values.address,
    namespace: values.namespace,
    id: values.id,
    taskQueue: values['task-queue'] ?? DEFAULT_TASK_QUEUE,
    detach: values.detach ?? false,
    local: values.local ?? false,
    json: values.json ?? false,
    out: values.out,
  };
}

/** Prints the result (JSON or the ranked table), writes --out files; exit 1 if nothing is feasible. */
function emitResult(result: SweepResult, args: SweepArgs, io: CommandIo): number {
  if (args.out !== undefined) {
    const { files } = writeResultFiles(result, path.resolve(args.out));
    io.stderr(`wrote ${files.join(', ')}\n`);
  }
  io.stdout(args.json ? `${JSON.stringify(result)}\n` : formatSweepResult(result));
  return result.counts.feasible > 0 ? 0 : 1;
}

async function runLocal(config: SmartSearchConfig, args: SweepArgs, io: CommandIo, signal: AbortSignal): Promise<number> {
  // runSweepLocal reports after every replay wave, with the trials recorded before that wave's batch.
  const waves = new Map<string, number>();
  const result = await runLocalSweep(config, {
    shouldStop: () => signal.aborted,
    onProgress: (mode, recorded) => {
      const n = (waves.get(mode) ?? 0) + 1;
      waves.set(mode, n);
      io.stderr(`progress: ${mode} · wave ${n} replayed · ${recorded} trial(s) recorded before it\n`);
    },
  });
  if (signal.aborted) io.stderr('interrupted: reporting the trials done so far\n');
  return emitResult(result, args, io);
}

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

/** Starts the workflow under the first free id (explicit ids are never suffixed). */
async function startSweep(client: Client, config: SmartSearchConfig, args: SweepArgs, eager: boolean) {
  const start = (workflowId: string) =>
    client.workflow.start<typeof sweep>('sweep', {
      workflowId,
      taskQueue: args.taskQueue,
      args: [config],
      // A used id (running or closed) is never reused: each run keeps its own history.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      // Only with this process's own worker on a shared native connection (see runSweep).
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
  const baseId = defaultSweepWorkflowId(config, config.sweep.seed);
  const handle = await startUnderFreeId(client, (n) => withRunSuffix(baseId, n), start);
  if (!handle) throw new TemporalUnavailable(`no free workflow id after ${withRunSuffix(baseId, MAX_RUNS)}`);
  return handle;
}

export async function runSweep(args: SweepArgs, io: CommandIo, signal: AbortSignal): Promise<number> {
  const config = loadConfigFile(path.resolve(args.configPath));
  if (args.local) {
    if (args.detach) throw new InputError('--local and --detach exclude each other');
    return runLocal(config, args, io, signal);
  }
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
    [spicaWorker] = await Promise.all([
      createSpicaWorker({ address, namespace, taskQueue: args.taskQueue, workflowsOnMainThread: true, wavesHere: true, connection }),
      registerSweepAttributes(connection, namespace, io),
    ]);
    const handle = await startSweep(client, config, args, true);
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
    return emitResult(result, args, io);
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

export const command: Command = {
  name: 'sweep',
  summary: 'run a sweep (embedded Temporal server by default, or --local)',
  usage,
  async run(argv, io) {
    const args = parseSweepArgs(argv);
    const shutdown = processShutdownSignal();
    try {
      return await runSweep(args, io, shutdown.signal);
    } finally {
      shutdown.dispose();
    }
  },
};
