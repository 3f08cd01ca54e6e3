// Faults the durable sweep must survive (issues 8, 15, 16), on real servers and processes:
// (1) a `spica worker` process is SIGKILLed inside each activity type in turn (plan, ask — with
//     materialize one local activity since ONE_STEP_ROUNDS_PATCH —, replay, report — the test hook SPICA_TEST_PAUSE_IN holds it there) and replaced: each time the
//     work it held is redone within 60 s (short timeouts or heartbeats, never a 10-minute stall), and
//     the sweep ends with the SweepResult of an uninterrupted run (runSweepLocal, same config and seed);
// (2) two worker processes with one activity slot each share the replays of a wave; one is SIGKILLed
//     mid-wave and the other finishes the sweep with the same result;
// (3) the dev server itself is killed mid-round and restarted on the same port and SQLite file: the
//     sweep moves on within 60 s and completes (the in-process worker rides out the outage);
// (4) the server is killed under a `spica sweep` process for good: exit 3, saying where the run is,
//     the SDK's retry warnings condensed to a line or two.
// Replays take a few hundred ms each so the faults land while waves are in flight.
import { mkdtempSync, writeFileSync } from 'node:fs';
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
import { isStoredResult, splitOutcome, type SweepOutcome } from '../../workflows/sweep-types.js';
import { connectTestTemporal, neutralized, spawnSpica, TINY_CONFIG_YAML, uniqueTaskQueue, type TestTemporal, localActivityType, type HistoryEvent } from './harness.js';
import { TEST_PAUSE_LINE, type PausableActivity } from '../../activities/test-pause.js';

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
  const { outcome } = splitOutcome(o);
  if (isStoredResult(outcome)) throw new Error('expected an inline SweepResult');
  return outcome;
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

const eventMs = (e: HistoryEvent) => Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;

/**
 * The activity types a history names for each pausable kind (the ask is a local activity: a marker).
 * A replay is a replayCandidate activity, or, on a worker alone on the task queue, a replayWave local
 * activity inside the branch's workflow task (activities/wave-here.ts).
 */
const ACTIVITY_OF: Record<PausableActivity, string[]> = {
  plan: ['plan'],
  ask: ['askAndMaterialize'],
  materialize: ['materializeCandidates'],
  replay: ['replayCandidate', 'replayWave'],
  report: ['reportSweep'],
};

/**
 * The work a killed worker held was done again since `sinceMs`: a retried attempt of that activity
 * completed, or, for a local activity (the ask with materialize, askAndMaterialize), its
 * marker was recorded — the branch's workflow task ran again on another worker.
 */
async function redoneSince(handles: WorkflowHandle[], kind: PausableActivity, sinceMs: number): Promise<boolean> {
  for (const h of handles) {
    const events = (await h.fetchHistory().catch(() => ({ events: [] as HistoryEvent[] }))).events ?? [];
    const byId = new Map(events.map((e) => [Number(e.eventId), e]));
    for (const e of events) {
      if (eventMs(e) < sinceMs) continue;
      if (ACTIVITY_OF[kind].includes(localActivityType(e) ?? '')) return true;
      if (kind === 'ask') continue;
      const done = e.activityTaskCompletedEventAttributes;
      if (!done) continue;
      const scheduled = byId.get(Number(done.scheduledEventId))?.activityTaskScheduledEventAttributes;
      const started = byId.get(Number(done.startedEventId))?.activityTaskStartedEventAttributes;
      if (ACTIVITY_OF[kind].includes(scheduled?.activityType?.name ?? '') && (started?.attempt ?? 1) > 1) return true;
    }
  }
  return false;
}

/** `spica worker` as a child process; resolves once it polls. `pauseIn` arms the test hook. */
async function startWorkerProcess(
  address: string,
  namespace: string,
  taskQueue: string,
  cacheDir: string,
  opts: { concurrency?: number; pauseIn?: PausableActivity } = {},
) {
  const env: Record<string, string> = opts.pauseIn ? { SPICA_TEST_HOOKS: '1', SPICA_TEST_PAUSE_IN: opts.pauseIn } : {};
  const w = spawnSpica(
    ['worker', '--address', address, '--namespace', namespace, '--task-queue', taskQueue, '--concurrency', String(opts.concurrency ?? 2), '--cache-dir', cacheDir],
    env,
  );
  let exitCode: number | null | undefined;
  void w.exited.then((c) => (exitCode = c));
  await expect
    .poll(
      () => {
        if (exitCode !== undefined) throw new Error(`spica worker exited (${exitCode}) before polling:\n${w.output().stderr}`);
        return w.output().stderr.includes('worker polling task queue');
      },
      // Set-up, not the behaviour under test: a worker boots tsx and bundles the workflows (seconds of
      // CPU), which takes a minute or more on a 2-core box shared with other test files.
      { timeout: 150_000, interval: 100 },
    )
    .toBe(true);
  return { ...w, paused: (kind: PausableActivity) => w.output().stderr.includes(`${TEST_PAUSE_LINE} ${kind}`) };
}

type WorkerProcess = Awaited<ReturnType<typeof startWorkerProcess>>;

describe('durable sweep faults', () => {
  it('a worker SIGKILLed inside each activity type is replaced; each time the work is redone within 60 s, and the sweep ends exactly like an uninterrupted run', async () => {
    // The order one agg branch reaches them: plan (parent), the first ask (askAndMaterialize, which
    // also materializes the asked points), replays, report.
    const kinds: PausableActivity[] = ['plan', 'ask', 'replay', 'report'];
    const taskQueue = uniqueTaskQueue('kill');
    const cacheDir = tempDir('spica-cache-kill-');
    const workers: WorkerProcess[] = [];
    const redoneAfter: Partial<Record<PausableActivity, number>> = {};
    try {
      let current = await startWorkerProcess(t.address, t.namespace, taskQueue, cacheDir, { pauseIn: kinds[0] });
      workers.push(current);
      const handle = await t.client.workflow.start<typeof sweep>('sweep', { workflowId: `kill-${taskQueue}`, taskQueue, args: [config] });
      const histories = [handle, t.client.workflow.getHandle(branchWorkflowId(handle.workflowId, 'agg'))];
      for (let i = 0; i < kinds.length; i++) {
        const kind = kinds[i];
        await expect.poll(() => current.paused(kind), { timeout: 60_000, interval: 100 }).toBe(true);
        // The replacement is up before the kill (it pauses in the next kind): from the kill on, the
        // sweep waits only for Temporal to give up on the dead worker's task.
        const next = await startWorkerProcess(t.address, t.namespace, taskQueue, cacheDir, { pauseIn: kinds[i + 1] });
        workers.push(next);
        current.child.kill('SIGKILL');
        expect(await current.exited).toBeNull(); // killed by the signal, no exit code
        const killedAt = Date.now();
        await expect.poll(() => redoneSince(histories, kind, killedAt), { timeout: 90_000, interval: 250 }).toBe(true);
        redoneAfter[kind] = (Date.now() - killedAt) / 1000;
        current = next;
      }
      const result = inline(await handle.result());
      expect(neutralized(result)).toEqual(neutralized(local));
      for (const kind of kinds) expect(redoneAfter[kind], `${kind} redone ${redoneAfter[kind]} s after the kill`).toBeLessThan(60);
    } finally {
      for (const w of workers) w.child.kill('SIGKILL');
      await Promise.all(workers.map((w) => w.exited));
    }
  }, 600_000);

  it('two worker processes (--concurrency 1) share a wave; one SIGKILLed mid-replay, the other retries it and finishes with the same result', async () => {
    const taskQueue = uniqueTaskQueue('scale');
    const cacheDir = tempDir('spica-cache-scale-');
    const a = await startWorkerProcess(t.address, t.namespace, taskQueue, cacheDir, { concurrency: 1 });
    let b: WorkerProcess | undefined;
    try {
      // b stops inside the first replay it takes (the test hook, before the cache is consulted), so the
      // SIGKILL below always lands mid-replay: a replay answered from the shared cache finishes in
      // milliseconds, and killing b 'while it runs one' could land after it completed (no retry).
      b = await startWorkerProcess(t.address, t.namespace, taskQueue, cacheDir, { concurrency: 1, pauseIn: 'replay' });
      const handle = await t.client.workflow.start<typeof sweep>('sweep', { workflowId: `scale-${taskQueue}`, taskQueue, args: [config] });
      const branch = t.client.workflow.getHandle(branchWorkflowId(handle.workflowId, 'agg'));
      const ident = (w: WorkerProcess) => `${w.child.pid}@`;
      const killed = b;
      // b holds a replay (paused inside it) while a works: note which one.
      let heldId: string | undefined;
      await expect
        .poll(
          async () => {
            const held = ((await branch.describe()).raw.pendingActivities ?? []).find(
              (p) => p.activityType?.name === 'replayCandidate' && p.state === PENDING_ACTIVITY_STATE_STARTED && (p.lastWorkerIdentity ?? '').startsWith(ident(killed)),
            );
            heldId = held?.activityId ?? undefined;
            return heldId !== undefined;
          },
          { timeout: 60_000, interval: 50 },
        )
        .toBe(true);
      killed.child.kill('SIGKILL');
      await killed.exited;
      const result = inline(await handle.result());
      expect(neutralized(result)).toEqual(neutralized(local));
      const events = (await branch.fetchHistory()).events ?? [];
      const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityId === heldId)!;
      const wave = Number(scheduled.activityTaskScheduledEventAttributes!.workflowTaskCompletedEventId);
      const startOf = (eventId: number) => events.find((e) => Number(e.activityTaskStartedEventAttributes?.scheduledEventId) === eventId)?.activityTaskStartedEventAttributes;
      // The replay b held was retried (after the heartbeat timeout) by a ...
      const retried = startOf(Number(scheduled.eventId));
      expect(retried?.attempt ?? 1).toBeGreaterThan(1);
      expect(retried?.identity ?? '').toMatch(new RegExp(`^${ident(a)}`));
      // ... and its wave was shared: a ran the other replays of that wave while b held this one.
      const siblings = events.filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'replayCandidate' && Number(e.activityTaskScheduledEventAttributes.workflowTaskCompletedEventId) === wave && e.eventId !== scheduled.eventId,
      );
      expect(siblings.length).toBeGreaterThanOrEqual(1);
      for (const sib of siblings) expect(startOf(Number(sib.eventId))).toMatchObject({ attempt: 1, identity: expect.stringMatching(new RegExp(`^${ident(a)}`)) });
    } finally {
      a.child.kill('SIGKILL');
      b?.child.kill('SIGKILL');
      await Promise.all([a.exited, b?.exited]);
    }
  }, 300_000);

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
      const backAt = Date.now();
      await connection.close();
      connection = await Connection.connect({ address: server.address });
      client = new Client({ connection, namespace: server.namespace });
      const resumed = client.workflow.getHandle<typeof sweep>(workflowId);
      // The round goes on: a replay completes after the restart, well within 60 s.
      const branch = client.workflow.getHandle(branchWorkflowId(workflowId, 'agg'));
      await expect
        .poll(async () => ((await branch.fetchHistory().catch(() => ({ events: [] as HistoryEvent[] }))).events ?? []).some((e) => e.activityTaskCompletedEventAttributes && eventMs(e) >= backAt), {
          timeout: 90_000,
          interval: 250,
        })
        .toBe(true);
      expect((Date.now() - backAt) / 1000).toBeLessThan(60);
      const result = inline(await resumed.result());
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

  it('the server dies for good under `spica sweep`: exit 3 naming the run, the retry warnings condensed', async () => {
    const server = await startDevServer(
      { ...loadDevServerConfig(), port: await freePort(), ui: { enabled: false }, db_filename: null, log_level: 'error', startup_timeout_seconds: 90 },
      { cliPath: inject('temporalCliPath'), reuse: false },
    );
    const file = path.join(tempDir('spica-lost-server-'), 'sweep.yaml');
    writeFileSync(file, FAULT_CONFIG_YAML.replace('max_rounds: 5', 'max_rounds: 40'));
    const sweeping = spawnSpica(['sweep', file, '--address', server.address, '--task-queue', uniqueTaskQueue('lost-server')], {
      SPICA_CACHE_DIR: tempDir('spica-cache-lost-'),
    });
    try {
      await expect.poll(() => /trials [1-9]\d*\//.test(sweeping.output().stderr), { timeout: 60_000, interval: 100 }).toBe(true);
      const workflowId = /workflow id: (\S+)/.exec(sweeping.output().stderr)![1];
      process.kill(server.pid!, 'SIGKILL');
      expect(await sweeping.exited).toBe(3);
      const { stderr } = sweeping.output();
      expect(stderr).toContain(`Temporal call failed at ${server.address}`);
      expect(stderr).toContain(`the run ${workflowId} stays on the server (unless it keeps no state) and goes on once the server and a worker run again: \`spica status ${workflowId}\``);
      // Before: a multi-line WARN per retried call, a dozen a second; now one line per outage (and a sum every 30 s).
      expect(stderr).not.toContain('sdkComponent');
      expect(stderr.match(/\[WARN\]/g)?.length ?? 0).toBeLessThanOrEqual(3);
    } finally {
      sweeping.child.kill('SIGKILL');
      await sweeping.exited;
      await server.stop();
    }
  }, 150_000);
});
