// What every test-setup provisioning module shares (test/setup/<component>.ts, one per external
// component: Temporal CLI, PostgreSQL, Chromium): start only when a selected test file needs the
// component; install a missing Debian package with apt-get when this process may (root, or
// passwordless sudo; never prompts, no stdin); otherwise fail the run at once with ONE line saying
// what to install — never a failing test deep in the run.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { TestProject } from 'vitest/node';

/** Whether any test file selected for this run matches `uses` (its source mentions the component). */
export async function selectedFilesUse(project: TestProject, uses: (file: string, source: string) => boolean): Promise<boolean> {
  try {
    // `filenamePattern` holds the CLI file filters (internal in vitest 3, hence the guard).
    const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
    const { testFiles } = await project.globTestFiles(filters);
    return testFiles.some((file) => uses(file, readFileSync(file, 'utf8')));
  } catch {
    return true;
  }
}

/** Installs Debian package `pkg` when apt-get is there and usable without a password; false otherwise. */
export function aptInstall(pkg: string, log: (line: string) => void): boolean {
  const root = process.getuid?.() === 0;
  const sudo = root ? [] : spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0 ? ['sudo', '-n'] : null;
  if (sudo === null || spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status !== 0) return false;
  log(`installing Debian ${pkg} with apt-get`);
  const run = (args: string[]) => {
    const [cmd, ...rest] = [...sudo, ...args];
    return spawnSync(cmd, rest, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
  };
  run(['apt-get', 'update', '-qq']);
  return run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', pkg]);
}

/** A set-up problem, reported as one line (no stack: it is not a test failure). */
export function setupFailure(line: string): Error {
  const err = new Error(line);
  err.stack = line;
  return err;
}
