// Runs `temporal server start-dev` as a child process (or reuses one already answering at the
// configured address), waits until it accepts gRPC calls, raises namespace retention and makes
// sure the sweep search attributes exist.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { openClientConnection } from './client-connection.js';
import { TemporalUnavailable } from '../../errors.js';
import { devServerAddress, startDevArgs, type DevServerConfig } from './dev-config.js';
import { isTemporalReachable, waitUntilReachable } from './reachability.js';
import { ensureSearchAttributes } from './search-attribute-registration.js';

export interface DevServerHandle {
  address: string;
  namespace: string;
  /** Web UI URL when the UI is enabled and the server is ours. */
  uiUrl?: string;
  /** True when a server was already answering at the address; `stop()` then does nothing. */
  reused: boolean;
  pid?: number;
  /** Resolves with the exit code when our child exits (never settles for a reused server). */
  exited: Promise<number | null>;
  /** Non-fatal problems (retention or search attributes could not be applied). */
  warnings: string[];
  stop(): Promise<void>;
}

export interface StartDevServerOptions {
  cliPath: string;
  /** Server stdout/stderr as it arrives (the dev server is quiet at log level warn). */
  onOutput?: (chunk: string) => void;
  /** Reuse a server already answering at the address (default true). */
  reuse?: boolean;
}

const OUTPUT_KEEP = 8_000;

function runCli(cliPath: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (err) => resolve({ code: null, output: err.message }));
    child.on('close', (code) => resolve({ code, output }));
  });
}

async function registerAttributes(cfg: DevServerConfig, address: string): Promise<string[]> {
  if (Object.keys(cfg.search_attributes).length === 0) return [];
  const connection = await openClientConnection({ address, connectTimeout: 5_000 });
  try {
    return (await ensureSearchAttributes(connection, cfg.namespace, cfg.search_attributes)).warnings;
  } finally {
    await connection.close();
  }
}

/** start-dev gives namespaces 24 h retention; raise it so old sweeps can be resumed. */
async function applyRetention(cfg: DevServerConfig, cliPath: string, address: string): Promise<string[]> {
  const hours = Math.round(cfg.retention_days * 24);
  const res = await runCli(cliPath, [
    'operator', 'namespace', 'update', '--address', address, '--namespace', cfg.namespace, '--retention', `${hours}h`,
  ]);
  return res.code === 0 ? [] : [`could not set ${hours} h retention on '${cfg.namespace}': ${res.output.trim()}`];
}

/**
 * Stops the server's process group should this process die without stopping it (SIGKILL, the OOM
 * killer): a detached shell that looks every second whether this process is still there. Before, a
 * `spica sweep` killed so left the server it had started running, unowned, until the next reboot.
 * Killed itself once the server exits.
 */
function orphanWatchdog(serverPid: number): ChildProcess | null {
  if (process.platform === 'win32') return null;
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; kill -TERM -${serverPid} 2>/dev/null`;
  const watchdog = spawn('/bin/sh', ['-c', script], { detached: true, stdio: 'ignore' });
  watchdog.on('error', () => undefined); // no shell: only the guard is lost
  watchdog.unref();
  return watchdog;
}

function terminate(child: ChildProcess, exited: Promise<number | null>, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  return exited.then(() => clearTimeout(killer));
}

export async function startDevServer(cfg: DevServerConfig, opts: StartDevServerOptions): Promise<DevServerHandle> {
  const address = devServerAddress(cfg);
  if ((opts.reuse ?? true) && (await isTemporalReachable(address, 1_000))) {
    const warnings = await registerAttributes(cfg, address).catch((err: Error) => [err.message]);
    return {
      address, namespace: cfg.namespace, reused: true, warnings,
      exited: new Promise<number | null>(() => {}),
      stop: async () => {},
    };
  }

  if (cfg.db_filename) mkdirSync(path.dirname(cfg.db_filename), { recursive: true });
  // Own process group: a terminal Ctrl-C reaches only us, and we stop the server after the worker.
  const child = spawn(opts.cliPath, startDevArgs(cfg), { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const watchdog = child.pid === undefined ? null : orphanWatchdog(child.pid);
  let output = '';
  const collect = (d: Buffer) => {
    const text = d.toString();
    output = (output + text).slice(-OUTPUT_KEEP);
    opts.onOutput?.(text);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  let exitCode: number | null | undefined;
  let spawnError: Error | undefined;
  const exited = new Promise<number | null>((resolve) => {
    child.on('error', (err) => {
      spawnError = err;
      exitCode = null;
      resolve(null);
    });
    child.on('exit', (code) => {
      exitCode = code;
      watchdog?.kill(); // its group id could be another's later
      resolve(code);
    });
  });

  const failure = await waitUntilReachable(address, {
    timeoutMs: cfg.startup_timeout_seconds * 1000,
    abortReason: () =>
      spawnError ? `could not run ${opts.cliPath}: ${spawnError.message}`
      : exitCode !== undefined ? `temporal server start-dev exited with code ${exitCode}`
      : undefined,
  });
  if (failure) {
    await terminate(child, exited, 2_000);
    // Its last lines, unless they were shown as they came (`spica server` streams them).
    const log = output.trim() && !opts.onOutput ? `\n--- server output ---\n${output.trim().split('\n').slice(-20).join('\n')}` : '';
    throw new TemporalUnavailable(`the embedded Temporal server did not start at ${address}: ${failure}${log}`);
  }

  const warnings = [
    ...(await applyRetention(cfg, opts.cliPath, address)),
    // start-dev registered them from --search-attribute already; this only catches a reused SQLite
    // file that predates an attribute added to temporal-dev.yaml.
    ...(await registerAttributes(cfg, address).catch((err: Error) => [err.message])),
  ];
  return {
    address,
    namespace: cfg.namespace,
    uiUrl: cfg.ui.enabled ? `http://${address.split(':')[0]}:${cfg.ui.port ?? cfg.port + 1000}` : undefined,
    reused: false,
    pid: child.pid,
    exited,
    warnings,
    stop: () => terminate(child, exited),
  };
}
