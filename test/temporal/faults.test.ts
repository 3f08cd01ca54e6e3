// Faults the durable sweep must survive (issue 8), on real servers and processes:
// (1) the worker process is SIGKILLed mid-sweep and a new one started: the sweep completes with the
//     SweepResult of an uninterrupted run (runSweepLocal, same config and seed);
// (2) the dev server itself is killed mid-sweep and restarted on the same port and SQLite file: the
//     sweep completes (the in-process worker rides out the outage).
// Replays take a few hundred ms each so the faults land while waves are in flight.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runLocalSweep } from '../../activities/local-sweep.js';
import { loadDevServerConfig } from '../../src/cli/temporal/dev-config.js';
import { startDevServer, type DevServerHandle } from '../../src/cli/temporal/dev-server.js';
import { freePort } from '../../src/cli/temporal/free-port.js';
import { isTemporalReachable } from '../../src/cli/temporal/reachability.js';
import { createSpicaWorker } from '../../src/cli/temporal/worker.js';
import { parseConfigText } from '../../src/config/load.js';
import type { SweepResult } from '../../src/search/sweepResult.js';
import { branchWorkflowId, progressQuery, type sweep } from '../../workflows/sweep.js';
import { isStoredResult, type SweepOutcome } from '../../workflows/sweep-types.js';
import { connectTestTemporal, neutralized, spawnSpica, TINY_CONFIG_YAML, uniqueTaskQueue, type TestTemporal } from './harness.js';

// One agg branch, 5 rounds × 2 candidates; a replay of this workload takes ~0.2–0.5 s here.
const FAULT_CONFIG_YAML = TINY_CONFIG_YAML.replace('max_rounds: 2', 'max_rounds: 5')
  .replace('isl: 128', 'isl: 2048')
  .replace('osl: 64', 'osl: 256')
  .replace('concurrency: 4', 'concurrency: 16')
  .replace('num_request_ratio: 4', 'num_request_ratio: 16');
const config = parseConfigText(FAULT_CONFIG_YAML);

let t: TestTemporal;
let local: SweepResult;

beforeAll(async () => {
  t = await connectTestTemporal();
  local = await runLocalSweep(config);
  expect(local.counts.evaluated).toBeGreaterThanOrEqual(8); // enough waves that the faults land mid-sweep
});
afterAll(async () => {
  await t?.connection.close();
});

function inline(o: SweepOutcome): SweepResult {
  if (isStoredResult(o)) throw new Error('expected an inline SweepResult');
  return o;
}

function tempDir(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Trials finished so far (the progress query is answered by a live worker). */
async function trialsDone(handle: WorkflowHandle<typeof sweep>): Promise<number> {
  try {
    const p = await handle.query(progressQuery);
    return p.branches.reduce((n, b) => n + b.trials_done, 0);
  } catch {
    return -1; // no worker answered yet
  }
}

// temporal.api.enums.v1.PendingActivityState (the proto package is not a direct dependency).
const PENDING_ACTIVITY_STATE_STARTED = 2;

/** A replayWave activity of the branch child is running on a worker right now. */
async function waveInFlight(child: WorkflowHandle): Promise<boolean> {
  const { raw } = await child.describe().catch(() => ({ raw: { pendingActivities: [] } }));
  return (raw.pendingActivities ?? []).some(
    (a) => a.activityType?.name === 'replayWave' && a.state === PENDING_ACTIVITY_STATE_STARTED,
  );
}

/** `spica worker` as a child process; resolves once it polls. */
async function startWorkerProcess(address: string, namespace: string, taskQueue: string, cacheDir: string) {
  const w = spawnSpica(['worker', '--address', address, '--namespace', namespace, '--task-queue', taskQueue, '--concurrency', '2', '--cache-dir', cacheDir]);
  let exitCode: number | null | undefined;
  void w.exited.then((c) => (exitCode = c));
  await expect
    .poll(
      () => {
        if (exitCode !== undefined) throw new Error(`spica worker exited (${exitCode}) before polling:\n${w.output().stderr}`);
        return w.output().stderr.includes('worker polling task queue');
      },
      { timeout: 45_000, interval: 100 },
    )
    .toBe(true);
  return w;
}

describe('durable sweep faults', () => {
  it('a SIGKILLed worker process is replaced and the sweep ends exactly like an uninterrupted run', async () => {
    const taskQueue = uniqueTaskQueue('kill');
    const cacheDir = tempDir('spica-cache-kill-');
    const first = await startWorkerProcess(t.address, t.namespace, taskQueue, cacheDir);
    let second: Awaited<ReturnType<typeof startWorkerProcess>> | undefined;
    try {
      const handle = await t.client.workflow.start<typeof sweep>('sweep', { workflowId: `kill-${taskQueue}`, taskQueue, args: [config] });
      // Some trials are done, most are not, and a wave is on the replay threads: kill now.
      const child = t.client.workflow.getHandle(branchWorkflowId(handle.workflowId, 'agg'));
      await expect
        .poll(async () => (await trialsDone(handle)) >= 2 && (await waveInFlight(child)), { timeout: 30_000, interval: 50 })
        .toBe(true);
      first.child.kill('SIGKILL');
      expect(await first.exited).toBeNull(); // killed by the signal, no exit code

      second = await startWorkerProcess(t.address, t.namespace, taskQueue, cacheDir);
      const result = inline(await handle.result());
      expect(neutralized(result)).toEqual(neutralized(local));
      // The wave the dead worker held was retried (after the heartbeat timeout) by the new one.
      const history = await child.fetchHistory();
      const retried = history.events!.filter((e) => (e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1);
      expect(retried.length).toBeGreaterThanOrEqual(1);
      // A fresh worker replays a long branch in one workflow task: the branch allows it 30 s, not 10 s.
      expect(Number((await child.describe()).raw.executionConfig?.defaultWorkflowTaskTimeout?.seconds)).toBe(30);
    } finally {
      first.child.kill('SIGKILL');
      second?.child.kill('SIGTERM');
      await second?.exited;
    }
  }, 120_000);

  it('the dev server is killed and restarted on the same SQLite file mid-sweep: the sweep completes', async () => {
    process.env.SPICA_CACHE_DIR = tempDir('spica-cache-restart-');
    const dbDir = tempDir('spica-temporal-db-');
    const serverConfig = {
      ...loadDevServerConfig(),
      port: await freePort(),
      ui: { enabled: false },
      db_filename: path.join(dbDir, 'temporal.sqlite'),
      log_level: 'error' as const,
      startup_timeout_seconds: 90,
    };
    const cliPath = inject('temporalCliPath');
    let server: DevServerHandle = await startDevServer(serverConfig, { cliPath, reuse: false });
    let connection: Connection | undefined;
    const taskQueue = uniqueTaskQueue('restart');
    const spica = await createSpicaWorker({ address: server.address, namespace: server.namespace, taskQueue, concurrency: 2 });
    const running = spica.worker.run();
    try {
      connection = await Connection.connect({ address: server.address });
      let client: Client = new Client({ connection, namespace: server.namespace });
      const workflowId = `restart-${taskQueue}`;
      const handle = await client.workflow.start<typeof sweep>('sweep', { workflowId, taskQueue, args: [config] });
      await expect.poll(() => trialsDone(handle), { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(2);
      expect((await handle.describe()).status.name).toBe('RUNNING'); // the outage lands mid-sweep

      process.kill(server.pid!, 'SIGKILL');
      await server.exited;
      await expect.poll(() => isTemporalReachable(server.address, 500), { timeout: 15_000, interval: 200 }).toBe(false);

      server = await startDevServer(serverConfig, { cliPath, reuse: false });
      await connection.close();
      connection = await Connection.connect({ address: server.address });
      client = new Client({ connection, namespace: server.namespace });
      const result = inline(await client.workflow.getHandle<typeof sweep>(workflowId).result());
      expect(neutralized(result)).toEqual(neutralized(local));
      expect(spica.worker.getState()).toBe('RUNNING'); // the same worker rode out the outage
    } finally {
      if (spica.worker.getState() === 'RUNNING') spica.worker.shutdown();
      await running.catch(() => undefined);
      await spica.close();
      await connection?.close();
      await server.stop();
      delete process.env.SPICA_CACHE_DIR;
    }
  }, 120_000);
});
