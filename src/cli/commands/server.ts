// `spica server`: run the embedded Temporal dev server described by temporal-dev.yaml until
// Ctrl-C, or reuse one already answering at that address.
import { parseArgs } from 'node:util';
import type { Command, CommandIo } from '../command.js';
import { InputError, TemporalUnavailable } from '../../errors.js';
import { provisionTemporalCli } from '../temporal/cli-binary.js';
import { loadDevServerConfig, type DevServerConfig } from '../temporal/dev-config.js';
import { startDevServer } from '../temporal/dev-server.js';
import { defaultDevConfigPath } from '../temporal/project-paths.js';
import { processShutdownSignal, whenAborted } from '../temporal/shutdown-signal.js';

const usage = `Usage: spica server [options]

Start the embedded Temporal dev server (temporal server start-dev) from temporal-dev.yaml and keep
it running until Ctrl-C. If a Temporal server already answers at the configured address it is
reused and the command returns at once.

Options:
  --config FILE   dev-server settings (default: temporal-dev.yaml in the repository)
  --ip IP         listen address (overrides the file)
  --port N        gRPC port (overrides the file; the UI uses --ui-port or port+1000)
  --ui-port N     Web UI port
  --headless      no Web UI
  --in-memory     no SQLite file: state is lost when the server stops
`;

export interface ServerRunOptions {
  config: DevServerConfig;
  /** Stops an owned server when aborted. */
  signal: AbortSignal;
}

function parsePort(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new InputError(`${flag} must be a port number, got '${value}'`);
  return n;
}

export function serverConfigFromArgs(argv: string[]): DevServerConfig {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: 'string' },
      ip: { type: 'string' },
      port: { type: 'string' },
      'ui-port': { type: 'string' },
      headless: { type: 'boolean' },
      'in-memory': { type: 'boolean' },
    },
    allowPositionals: false,
  });
  const base = loadDevServerConfig(values.config ?? defaultDevConfigPath());
  const port = parsePort(values.port, '--port');
  const uiPort = parsePort(values['ui-port'], '--ui-port');
  return {
    ...base,
    ip: values.ip ?? base.ip,
    port: port ?? base.port,
    ui: values.headless
      ? { enabled: false }
      : { enabled: base.ui.enabled || uiPort !== undefined, port: uiPort ?? (port !== undefined ? undefined : base.ui.port) },
    db_filename: values['in-memory'] ? null : base.db_filename,
  };
}

/** Runs (or reuses) the server; resolves with the exit code once it stopped. */
export async function runServer(opts: ServerRunOptions, io: CommandIo): Promise<number> {
  const cli = await provisionTemporalCli({ log: (l) => io.stderr(`provision: ${l}\n`) });
  const server = await startDevServer(opts.config, { cliPath: cli.path, onOutput: (t) => io.stderr(t) });
  for (const w of server.warnings) io.stderr(`warning: ${w}\n`);
  if (server.reused) {
    io.stderr(`A Temporal server is already running at ${server.address}; reusing it (nothing to start).\n`);
    io.stdout(`${server.address}\n`);
    return 0;
  }
  io.stderr(
    `Temporal dev server ready at ${server.address} (namespace ${server.namespace}` +
      `${opts.config.db_filename ? `, data ${opts.config.db_filename}` : ', in-memory'})\n` +
      (server.uiUrl ? `Web UI: ${server.uiUrl}\n` : '') +
      'Press Ctrl-C to stop.\n',
  );
  io.stdout(`${server.address}\n`);
  const outcome = await Promise.race([
    whenAborted(opts.signal).then(() => 'stop' as const),
    server.exited.then((code) => code),
  ]);
  if (outcome === 'stop') {
    io.stderr('stopping the Temporal dev server…\n');
    await server.stop();
    return 0;
  }
  throw new TemporalUnavailable(`the Temporal dev server exited unexpectedly (code ${outcome})`);
}

export const command: Command = {
  name: 'server',
  summary: 'start the embedded Temporal dev server (temporal-dev.yaml)',
  usage,
  async run(argv, io) {
    const config = serverConfigFromArgs(argv);
    const shutdown = processShutdownSignal();
    try {
      return await runServer({ config, signal: shutdown.signal }, io);
    } finally {
      shutdown.dispose();
    }
  },
};
