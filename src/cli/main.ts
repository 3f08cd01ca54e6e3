// `spica` dispatcher: maps the first argument to a command module and turns errors into exit codes.
import type { Command, CommandIo } from './command.js';
import { SpicaError } from '../errors.js';
import { missingNamespace, missingNamespaceMessage } from './temporal/namespace-not-found.js';

/** Command name → lazy module loader. Order is the order `spica --help` lists them. */
const COMMANDS: Record<string, () => Promise<{ command: Command }>> = {
  validate: () => import('./commands/validate.js'),
  explain: () => import('./commands/explain.js'),
  estimate: () => import('./commands/estimate.js'),
  configs: () => import('./commands/configs.js'),
  project: () => import('./commands/project.js'),
  replay: () => import('./commands/replay.js'),
  sweep: () => import('./commands/sweep.js'),
  server: () => import('./commands/server.js'),
  worker: () => import('./commands/worker.js'),
  list: () => import('./commands/list.js'),
  status: () => import('./commands/status.js'),
  result: () => import('./commands/result.js'),
  resume: () => import('./commands/resume.js'),
  schedule: () => import('./commands/schedule.js'),
  deploy: () => import('./commands/deploy.js'),
};

const SUMMARIES: Record<string, string> = {
  validate: 'check a SmartSearchConfig YAML and print a short summary',
  explain: 'show each deployment_mode branch: searched, pinned and dropped dimensions',
  estimate: 'memory and steady-state latency of one model/SKU/shape',
  configs: 'list the parallel-config pool of a config',
  project: 'project latent parallel features onto a legal config',
  replay: 'run one replay of a candidate through the simulator',
  sweep: 'run a sweep (embedded Temporal server by default, or --local)',
  server: 'start the embedded Temporal dev server (temporal-dev.yaml)',
  worker: 'run a standalone Temporal worker',
  list: 'list sweep runs on the Temporal server (newest first)',
  status: 'status and per-branch progress of a sweep run',
  result: 'the SweepResult of a completed sweep run (--json, --out DIR)',
  resume: 'continue a failed/terminated sweep in a new run without replaying finished trials',
  schedule: 'recurring re-sweeps as Temporal Schedules (create, list, delete, trigger)',
  deploy: 'write Kubernetes (Dynamo) and launch-script files for a candidate',
};

let closedPipesQuiet = false;

/**
 * A reader that goes away early (`spica … --json | head -c 200`) makes the next write fail with EPIPE,
 * which node raises as an uncaught 'error' event: a stack trace instead of the command's own ending.
 * The output has nobody to reach, so it is dropped and the command finishes with its own exit code.
 */
function quietOnClosedPipes(): void {
  if (closedPipesQuiet) return;
  closedPipesQuiet = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      // EIO: a terminal that hung up (the command then shuts down on its SIGHUP).
      if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED' && err.code !== 'EIO') throw err;
    });
  }
}

export function defaultIo(): CommandIo {
  quietOnClosedPipes();
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    isTty: Boolean(process.stderr.isTTY),
  };
}

function topUsage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.keys(COMMANDS).map((n) => `  ${n.padEnd(width)}  ${SUMMARIES[n] ?? ''}`);
  return [
    'Usage: spica <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Run `spica <command> --help` for the options of one command.',
    'Exit codes: 0 ok, 1 nothing feasible, 2 bad input, 3 Temporal or provisioning failure.',
    '',
  ].join('\n');
}

export async function main(argv: string[], io: CommandIo = defaultIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(topUsage());
    return name === undefined ? 2 : 0;
  }
  const load = COMMANDS[name];
  if (!load) {
    io.stderr(`spica: unknown command '${name}'\n\n${topUsage()}`);
    return 2;
  }
  try {
    const { command } = await load();
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout(command.usage.endsWith('\n') ? command.usage : `${command.usage}\n`);
      return 0;
    }
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof SpicaError) {
      io.stderr(`spica ${name}: ${err.message}\n`);
      return err.exitCode;
    }
    // Node's parseArgs errors are usage errors, not crashes.
    const code = (err as { code?: string }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      io.stderr(`spica ${name}: ${(err as Error).message}\nRun \`spica ${name} --help\`.\n`);
      return 2;
    }
    // An unknown --namespace is bad input, whichever Temporal call found it out.
    const namespace = missingNamespace(err);
    if (namespace !== null) {
      io.stderr(`spica ${name}: ${missingNamespaceMessage(namespace)}\n`);
      return 2;
    }
    io.stderr(`spica ${name}: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
    return 70;
  }
}
