// One way to run the CLI as a real subprocess in tests and benches (signals, exit codes, tsx startup
// included): `bin/spica.js <args>` with the repository as working directory. test/temporal/harness.ts
// re-exports it; the large-sweep scenario and the fault tests use it for workers, resume and result.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface SpicaProcess {
  child: ReturnType<typeof spawn>;
  /** Exit code, or null when a signal ended it. */
  exited: Promise<number | null>;
  /** Everything written so far. */
  output: () => { stdout: string; stderr: string };
}

/** Runs `bin/spica.js <args>`; `env` adds (or overrides) variables of this process's environment. */
export function spawnSpica(args: string[], env: NodeJS.ProcessEnv = {}): SpicaProcess {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/spica.js'), ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

/** CPU seconds (user + system) a live Linux process has used so far; null elsewhere or once it is gone. */
export function processCpuSeconds(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100 Hz on Linux)
  } catch {
    return null;
  }
}
