// CLI-level tests of `spica server` and of Temporal CLI provisioning.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '@temporalio/client';
import { main } from '../../src/cli/main.js';
import { TemporalUnavailable } from '../../src/errors.js';
import { findTemporalCli, provisionTemporalCli } from '../../src/cli/temporal/cli-binary.js';
import { freePort } from '../../src/cli/temporal/free-port.js';
import { isTemporalReachable } from '../../src/cli/temporal/reachability.js';
import { captureIo, connectTestTemporal, spawnSpica, TINY_CONFIG_YAML, uniqueTaskQueue, withSpicaWorker, writeTempConfig, type SpicaProcess, type TestTemporal } from './harness.js';
import { describePollers, hasSweepWorker, taskQueuePollers } from '../../src/cli/temporal/task-queue.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let t: TestTemporal;

beforeAll(async () => {
  t = await connectTestTemporal();
});
afterAll(async () => {
  await t?.connection.close();
});

describe('spica server', () => {
  it('reuses a server already running at the address and returns at once: with --no-worker, or a worker polling there', async () => {
    const [host, port] = t.address.split(':');
    const { io, out } = captureIo();
    expect(await main(['server', '--ip', host, '--port', port, '--no-worker'], io)).toBe(0);
    expect(out.stderr).toMatch(/already running at .*; reusing it \(nothing to start\)/);
    expect(out.stdout.trim()).toBe(t.address);
    const queue = uniqueTaskQueue('server-reuse');
    await withSpicaWorker(t, queue, async () => {
      await expect.poll(async () => hasSweepWorker(await describePollers(t.connection, t.namespace, queue)), { timeout: 30_000 }).toBe(true);
      const again = captureIo();
      expect(await main(['server', '--ip', host, '--port', port, '--task-queue', queue], again.io)).toBe(0);
      expect(again.out.stderr).toMatch(/reusing it \(nothing to start\)/);
    });
  });

  // A server left by a killed sweep (or any Temporal server) with nobody polling: sweeps there would
  // each start their own worker, so `spica server` runs its worker against it.
  it('reuses a server with no worker polling its task queue and runs the worker against it until Ctrl-C', async () => {
    const [host, port] = t.address.split(':');
    const queue = uniqueTaskQueue('server-reuse-worker');
    const run = spawnSpica(['server', '--ip', host, '--port', port, '--task-queue', queue]);
    try {
      for (let i = 0; i < 900 && !run.output().stderr.includes(`worker polling task queue '${queue}'`); i++) {
        if (run.child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(run.output().stderr).toContain(`reusing it, with a worker beside it (none polls task queue '${queue}')`);
      // The ready line comes once the server lists the worker (a full run once saw it before that).
      expect(hasSweepWorker(await describePollers(t.connection, t.namespace, queue))).toBe(true);
      await expect.poll(async () => hasSweepWorker(await describePollers(t.connection, t.namespace, queue)), { timeout: 30_000 }).toBe(true);
    } finally {
      run.child.kill('SIGINT');
    }
    expect(await run.exited).toBe(0);
    expect(await isTemporalReachable(t.address)).toBe(true); // not its server to stop
  });

  // A test that fails midway leaves no server running (its watchdog stops the Temporal server).
  const started: SpicaProcess[] = [];
  afterEach(() => {
    for (const run of started.splice(0)) if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
  });

  /** `spica server` on a free port, in memory, with fresh caches; resolves once `ready` is on its stderr. */
  async function startServer(args: string[], ready: string): Promise<{ run: SpicaProcess; address: string; env: NodeJS.ProcessEnv }> {
    const port = await freePort();
    const env = { SPICA_CACHE_DIR: mkdtempSync(path.join(os.tmpdir(), 'spica-srv-cache-')), SPICA_RESULT_STORE: mkdtempSync(path.join(os.tmpdir(), 'spica-srv-results-')) };
    const run = spawnSpica(['server', '--port', String(port), '--headless', '--in-memory', ...args], env);
    started.push(run);
    for (let i = 0; i < 900 && !run.output().stderr.includes(ready); i++) {
      if (run.child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(run.output().stderr).toContain(ready);
    const address = `127.0.0.1:${port}`;
    if (!args.includes('--no-worker')) {
      // Its ready line comes once the server lists the worker; kept as a guard.
      const connection = await Connection.connect({ address });
      try {
        await expect.poll(async () => hasSweepWorker(await describePollers(connection, 'default', 'spica')), { timeout: 30_000 }).toBe(true);
      } finally {
        await connection.close();
      }
    }
    return { run, address, env };
  }

  // Issue 15: a sweep that has to start its own worker pays the worker SDK's load and first execution
  // (~1.3–1.6× a `--local` sweep on the examples); one handed to a worker already polling does not.
  it('runs a worker beside its server: a sweep hands its run to it; Ctrl-C stops the worker, then the server', async () => {
    const { run, address, env } = await startServer([], "worker polling task queue 'spica'");
    try {
      const sweep = spawnSpica(['sweep', writeTempConfig(TINY_CONFIG_YAML), '--address', address, '--json'], env);
      expect(await sweep.exited).toBe(0);
      expect(sweep.output().stderr).toContain("run by the worker(s) polling task queue 'spica' (1 seen)");
      expect(JSON.parse(sweep.output().stdout).counts.evaluated).toBe(4);
    } finally {
      run.child.kill('SIGINT');
    }
    expect(await run.exited).toBe(0);
    const { stderr } = run.output();
    expect(stderr.indexOf('worker shutting down')).toBeGreaterThan(-1);
    expect(stderr.indexOf('stopping the Temporal dev server')).toBeGreaterThan(stderr.indexOf('worker shutting down'));
    expect(await isTemporalReachable(address, 500)).toBe(false);
  });

  // Its worker keeps trials, results and the replay cache in its own store: a sweep of another store
  // handed to it would have its --store silently ignored, and could not read a large result back.
  it('a sweep with another store than the polling worker: exit 3 naming it, no run started', async () => {
    const { run, address, env } = await startServer([], "worker polling task queue 'spica'");
    try {
      const otherStore = { ...env, SPICA_RESULT_STORE: mkdtempSync(path.join(os.tmpdir(), 'spica-srv-other-')) };
      const sweep = spawnSpica(['sweep', writeTempConfig(TINY_CONFIG_YAML), '--address', address, '--json'], otherStore);
      expect(await sweep.exited).toBe(3);
      expect(sweep.output().stderr).toMatch(/task queue 'spica' is polled by worker\(s\) that use another store than this process's .*#store-[0-9a-f]{12}/);
      const connection = await Connection.connect({ address });
      try {
        const listed = await connection.workflowService.listWorkflowExecutions({ namespace: 'default' });
        expect(listed.executions).toEqual([]);
      } finally {
        await connection.close();
      }
    } finally {
      run.child.kill('SIGINT');
    }
    expect(await run.exited).toBe(0);
  });

  it('the Temporal server dies under its worker: the worker stops and the command exits 3 saying so', async () => {
    const { run } = await startServer([], "worker polling task queue 'spica'");
    const temporal = childPids(run.child.pid!).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('start-dev'));
    expect(temporal).toHaveLength(1);
    process.kill(temporal[0], 'SIGKILL');
    expect(await run.exited).toBe(3);
    expect(run.output().stderr).toContain('the Temporal dev server exited unexpectedly');
  });

  // A process killed outright (SIGKILL, the OOM killer) cannot stop its server: a watchdog does.
  it('killed with SIGKILL, it leaves no Temporal server running', async () => {
    const { run, address } = await startServer(['--no-worker'], 'Press Ctrl-C to stop.');
    const temporal = childPids(run.child.pid!).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('start-dev'));
    expect(temporal).toHaveLength(1);
    run.child.kill('SIGKILL');
    await run.exited;
    await expect.poll(() => isTemporalReachable(address, 500), { timeout: 15_000, interval: 250 }).toBe(false);
    await expect.poll(() => existsSync(`/proc/${temporal[0]}`), { timeout: 15_000, interval: 250 }).toBe(false);
  });

  it('--no-worker: only the server, nobody polls the task queue', async () => {
    const { run, address } = await startServer(['--no-worker'], 'Press Ctrl-C to stop.');
    try {
      const connection = await Connection.connect({ address });
      try {
        expect(await taskQueuePollers(connection, 'default', 'spica', 'workflow')).toEqual([]);
      } finally {
        await connection.close();
      }
      expect(run.output().stderr).not.toContain('worker polling');
    } finally {
      run.child.kill('SIGINT');
    }
    expect(await run.exited).toBe(0);
  });

  it('--no-worker with a worker flag: exit 2, nothing started', async () => {
    const { io, out } = captureIo();
    expect(await main(['server', '--no-worker', '--concurrency', '2', '--port', '1'], io)).toBe(2);
    expect(out.stderr).toContain('--no-worker runs no worker, so --concurrency has nothing to set');
  });

  // SIGHUP: the terminal or ssh session went away. Left to node's default it ended the command on the
  // spot and the Temporal server it had started (its own process group) ran on, orphaned.
  it.each(['SIGINT', 'SIGHUP'] as const)('starts its own server, serves until %s, then stops it', async (sig) => {
    const port = await freePort();
    const address = `127.0.0.1:${port}`;
    const run = spawnSpica(['server', '--port', String(port), '--headless', '--in-memory']);
    for (let i = 0; i < 600 && !run.output().stdout.includes(address); i++) {
      if (run.child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(run.output().stdout.trim()).toBe(address);
    expect(await isTemporalReachable(address)).toBe(true);
    run.child.kill(sig);
    expect(await run.exited).toBe(0);
    expect(await isTemporalReachable(address, 500)).toBe(false);
  });

  it('a port taken by something else: exit 3, the server says why, once', async () => {
    const taken = net.createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const run = spawnSpica(['server', '--port', String(port), '--headless', '--in-memory']);
      expect(await run.exited).toBe(3);
      const { stderr } = run.output();
      expect(stderr).toContain(`the embedded Temporal server did not start at 127.0.0.1:${port}`);
      // Streamed as it came; the error no longer repeats it.
      expect(stderr.match(/address already in use/g)).toHaveLength(1);
    } finally {
      taken.close();
    }
  });
});

/** The pids whose parent is `pid` (Linux /proc). */
function childPids(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === pid;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

describe('Temporal CLI provisioning', () => {
  it('is idempotent: a second call finds the same binary without installing anything', async () => {
    const logs: string[] = [];
    const first = await provisionTemporalCli({ log: (l) => logs.push(l) });
    const second = await provisionTemporalCli({ log: (l) => logs.push(l) });
    expect(second.path).toBe(first.path);
    expect(logs).toEqual([]);
    expect(first.path).toBe(t.cliPath); // the test server runs the same binary
  });

  it('`npm run provision` prints the CLI path', async () => {
    const run = spawn(process.execPath, ['--import', 'tsx', 'src/cli/provision-main.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    run.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const code = await new Promise<number | null>((resolve) => run.on('exit', resolve));
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(t.cliPath);
  });

  it('honours SPICA_TEMPORAL_CLI and rejects a non-executable one', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'spica-cli-'));
    const fake = path.join(dir, 'temporal');
    writeFileSync(fake, '#!/bin/sh\n');
    expect(() => findTemporalCli({ env: { SPICA_TEMPORAL_CLI: fake } })).toThrow(TemporalUnavailable);
    chmodSync(fake, 0o755);
    expect(findTemporalCli({ env: { SPICA_TEMPORAL_CLI: fake } })).toEqual({ path: fake, source: 'env' });
  });

  it('fails with exit code 3 and a hint when python3 is missing', async () => {
    const projectRoot = mkdtempSync(path.join(os.tmpdir(), 'spica-proj-'));
    const err = await provisionTemporalCli({ env: { PATH: '' }, projectRoot }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemporalUnavailable);
    expect((err as TemporalUnavailable).exitCode).toBe(3);
    expect((err as Error).message).toMatch(/python3/);
  });
});
