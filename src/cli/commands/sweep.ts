// `spica sweep <config>`: run the `sweep` workflow. With no Temporal address configured it starts
// the embedded dev server (SQLite under .spica/) and an in-process worker; with an address it uses
// that server, handing the run to the `spica worker`s polling the task queue if there are any, else
// with an in-process worker (unless --detach): src/cli/sweeps/durable-sweep.ts, loaded only then.
// `--local` runs the same sweep in this process without any server (or the Temporal SDK).
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Command, CommandIo } from '../command.js';
import { InputError } from '../../errors.js';
import { loadConfigFile } from '../../config/load.js';
import type { SmartSearchConfig } from '../../config/schema.js';
import { runLocalSweep } from '../../../activities/local-sweep.js';
import { processShutdownSignal } from '../temporal/shutdown-signal.js';
import { DEFAULT_TASK_QUEUE } from '../temporal/task-queue.js';
import { emitSweepResult } from '../sweeps/emit-result.js';
import { STORE_OPTION_USAGE, useStoreFlag } from '../../store/select.js';

const usage = `Usage: spica sweep <config.yaml> [options]

Run a sweep as the Temporal workflow 'sweep'. The workflow id goes to stderr, the result to stdout.

Where it runs: --address, else TEMPORAL_ADDRESS, else the default profile of
~/.config/temporalio/temporal.toml; with none of these Spica starts its embedded dev server
(temporal-dev.yaml, SQLite under .spica/), or uses the one already running there.

Who runs it: the \`spica worker\`s polling the task queue, if any do; this process then only starts
the run, shows its progress and prints its result (and runs a worker itself should they all go away
before the run ends). With none polling, a worker in this process, for the duration of the sweep.

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
Ctrl-C stops following; the run stays on the server (with its own worker gone it resumes when a
worker polls). Exit code 1 when the sweep ran but found no feasible candidate.
`;

export interface SweepArgs {
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
  return emitSweepResult(result, args, io);
}

export async function runSweep(args: SweepArgs, io: CommandIo, signal: AbortSignal): Promise<number> {
  const config = loadConfigFile(path.resolve(args.configPath));
  if (args.local) {
    if (args.detach) throw new InputError('--local and --detach exclude each other');
    return runLocal(config, args, io, signal);
  }
  const { runDurableSweep } = await import('../sweeps/durable-sweep.js');
  return runDurableSweep(config, args, io, signal);
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
