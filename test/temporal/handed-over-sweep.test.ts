// `spica sweep` with a `spica worker` already polling its task queue hands the run to that worker and
// only follows it (src/cli/sweeps/handed-over-sweep.ts): no worker SDK in the sweep process, every
// workflow task and replay on the worker, the same result as --local; `spica resume` likewise. Should
// the workers all go away mid-run, the sweep process runs a worker itself and finishes the run.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalSweep } from '../../activities/local-sweep.js';
import { TEST_PAUSE_LINE } from '../../activities/test-pause.js';
import { createSpicaWorker } from '../../src/cli/temporal/worker.js';
import { describePollers, hasSweepWorker } from '../../src/cli/temporal/task-queue.js';
import { parseConfigText } from '../../src/config/load.js';
import type { SweepResult } from '../../src/search/sweepResult.js';
import { branchHistory, connectTestTemporal, moduleProbe, neutralized, replayWork, spawnPollingWorker, spawnSpica, TINY_CONFIG_YAML, uniqueTaskQueue, writeTempConfig, type HistoryEvent, type SpicaProcess, type TestTemporal } from './harness.js';

let t: TestTemporal;
let local: SweepResult;

beforeAll(async () => {
  t = await connectTestTemporal();
  local = await runLocalSweep(parseConfigText(TINY_CONFIG_YAML));
});
afterAll(async () => {
  await t?.connection.close();
});

/** A `spica worker` process polling `taskQueue` with its own cache, once the server lists it. */
function pollingWorker(taskQueue: string, env: NodeJS.ProcessEnv = {}): Promise<SpicaProcess> {
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'spica-cache-handover-'));
  return spawnPollingWorker(t, taskQueue, ['--concurrency', '2', '--cache-dir', cacheDir], env);
}

const workflowTaskIdentities = (events: HistoryEvent[]) => events.flatMap((e) => e.workflowTaskStartedEventAttributes?.identity ?? []);

describe('spica sweep with a worker already polling', () => {
  it('hands the run to the worker: the sweep process loads no worker SDK, the worker runs every task, same result as --local', async () => {
    const taskQueue = uniqueTaskQueue('handover');
    const worker = await pollingWorker(taskQueue);
    try {
      const probe = moduleProbe();
      const sweep = spawnSpica(['sweep', writeTempConfig(TINY_CONFIG_YAML), '--address', t.address, '--namespace', t.namespace, '--task-queue', taskQueue, '--json'], {
        NODE_OPTIONS: probe.nodeOptions,
      });
      expect(await sweep.exited, sweep.output().stderr).toBe(0);
      const { stdout, stderr } = sweep.output();
      expect(stderr).toMatch(/run by the worker\(s\) polling task queue/);
      const loaded = probe.loaded(stderr);
      expect(loaded.some((f) => f.startsWith('@temporalio/client/'))).toBe(true); // the probe sees the SDK the process did load
      expect(loaded.filter((f) => /^@temporalio\/(worker|core-bridge)\//.test(f))).toEqual([]);
      const result = JSON.parse(stdout) as SweepResult;
      expect(neutralized(result)).toEqual(neutralized(local));
      const events = await branchHistory(t, result.sweep_id!);
      const identities = workflowTaskIdentities(events);
      expect(identities.length).toBeGreaterThan(0);
      expect(identities.every((id) => id.startsWith(`${worker.child.pid}@`))).toBe(true);
      // Alone on the task queue, the `spica worker` replayed each wave itself (local activities).
      expect(replayWork(events).scheduled).toEqual([]);
      expect(replayWork(events).local).toContain('replayWave');
      // The other client-only commands load no worker SDK either.
      const statusProbe = moduleProbe();
      const status = spawnSpica(['status', result.sweep_id!, '--address', t.address, '--namespace', t.namespace], { NODE_OPTIONS: statusProbe.nodeOptions });
      expect(await status.exited, status.output().stderr).toBe(0);
      expect(statusProbe.loaded(status.output().stderr).filter((f) => /^@temporalio\/(worker|core-bridge)\//.test(f))).toEqual([]);
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
  }, 240_000);

  it('spica resume hands the new run to the polling worker too; same result as --local', async () => {
    const taskQueue = uniqueTaskQueue('resume-handover');
    const id = `stopped-${taskQueue}-run`;
    // A run nobody worked on, terminated: `spica resume` starts <id>-resume-1 with its input.
    const first = await t.client.workflow.start('sweep', { workflowId: id, taskQueue, args: [parseConfigText(TINY_CONFIG_YAML)] });
    await first.terminate('test: resume it');
    const worker = await pollingWorker(taskQueue);
    try {
      const resume = spawnSpica(['resume', id, '--address', t.address, '--namespace', t.namespace, '--json']);
      expect(await resume.exited, resume.output().stderr).toBe(0);
      expect(resume.output().stderr).toMatch(/run by the worker\(s\) polling task queue/);
      const result = JSON.parse(resume.output().stdout) as SweepResult;
      expect(result.sweep_id).toBe(`${id}-resume-1`);
      expect(neutralized(result)).toEqual(neutralized(local));
      const events = await branchHistory(t, result.sweep_id!);
      expect(workflowTaskIdentities(events).every((i) => i.startsWith(`${worker.child.pid}@`))).toBe(true);
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
  }, 240_000);

  it('a worker SIGKILLed mid-run: the sweep process runs a worker itself and ends with the same result', async () => {
    const taskQueue = uniqueTaskQueue('takeover');
    // The worker stops inside its first replay (the test hook), so the kill always lands mid-run.
    const worker = await pollingWorker(taskQueue, { SPICA_TEST_HOOKS: '1', SPICA_TEST_PAUSE_IN: 'replay' });
    const sweep = spawnSpica(['sweep', writeTempConfig(TINY_CONFIG_YAML), '--address', t.address, '--namespace', t.namespace, '--task-queue', taskQueue, '--json']);
    try {
      await expect.poll(() => worker.output().stderr.includes(`${TEST_PAUSE_LINE} replay`), { timeout: 120_000, interval: 100 }).toBe(true);
      expect(sweep.output().stderr).toMatch(/run by the worker\(s\) polling task queue/);
      worker.child.kill('SIGKILL');
      expect(await sweep.exited, sweep.output().stderr).toBe(0);
      expect(sweep.output().stderr).toMatch(/no worker polls task queue '.*' any more: this process runs one/);
      expect(sweep.output().stderr).not.toMatch(/\[INFO\]/); // the SDK's own logs at warn level, as everywhere
      expect(neutralized(JSON.parse(sweep.output().stdout) as SweepResult)).toEqual(neutralized(local));
    } finally {
      worker.child.kill('SIGKILL');
      sweep.child.kill('SIGKILL');
      await Promise.all([worker.exited, sweep.exited]);
    }
  }, 240_000);

  it('a worker on another machine stopped a moment ago (still listed): the sweep sees its tasks wait and runs a worker itself', async () => {
    const taskQueue = uniqueTaskQueue('stale-remote');
    // A worker whose identity names another host: this process cannot look up its pid, so only the
    // server's list speaks for it, and that list keeps it "polling" for up to a minute after it stopped.
    const remote = await createSpicaWorker({ address: t.address, namespace: t.namespace, taskQueue, identity: '4242@spica-test-other-host', concurrency: 1 });
    const running = remote.worker.run();
    try {
      await expect.poll(async () => hasSweepWorker(await describePollers(t.connection, t.namespace, taskQueue, { lasting: true })), { timeout: 30_000, interval: 200 }).toBe(true);
    } finally {
      remote.worker.shutdown();
      await running;
      await remote.close();
    }
    expect(hasSweepWorker(await describePollers(t.connection, t.namespace, taskQueue, { lasting: true }))).toBe(true); // still listed
    const t0 = Date.now();
    const sweep = spawnSpica(['sweep', writeTempConfig(TINY_CONFIG_YAML), '--address', t.address, '--namespace', t.namespace, '--task-queue', taskQueue, '--json']);
    try {
      expect(await sweep.exited, sweep.output().stderr).toBe(0);
      const { stdout, stderr } = sweep.output();
      expect(stderr).toMatch(/run by the worker\(s\) polling task queue/);
      expect(stderr).toContain(`no worker took a workflow task of this run for 10 s although the server lists worker(s) on task queue '${taskQueue}'`);
      // Before: the sweep waited until the server stopped listing the worker (~70 s after its last poll).
      expect(Date.now() - t0).toBeLessThan(40_000);
      expect(neutralized(JSON.parse(stdout) as SweepResult)).toEqual(neutralized(local));
    } finally {
      sweep.child.kill('SIGKILL');
      await sweep.exited;
    }
  }, 120_000);
});
