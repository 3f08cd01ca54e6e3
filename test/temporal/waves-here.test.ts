// `spica sweep`'s in-process worker replays a branch's waves itself (local activities, no server round
// trip per replay) only while no other worker polls the task queue; with another worker polling, the
// waves are replay activities again and that worker takes a share. Same SweepResult either way.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalSweep } from '../../activities/local-sweep.js';
import { askAndMaterializeAsking, waveHereOn } from '../../activities/wave-here.js';
import { main } from '../../src/cli/main.js';
import { activityPollers, isSweepWorker, otherLivePollers, POLLER_LIVE_MS, storeTagOf, sweepWorkerIdentity, workerIdentity } from '../../src/cli/temporal/task-queue.js';
import { createSpicaWorker } from '../../src/cli/temporal/worker.js';
import { parseConfigText } from '../../src/config/load.js';
import type { SweepResult } from '../../src/search/sweepResult.js';
import { branchHistory, captureIo, connectTestTemporal, neutralized, replayWork, TINY_CONFIG_YAML, uniqueTaskQueue, writeTempConfig, type TestTemporal } from './harness.js';

// Waves of four ~0.1-s replays, three rounds: enough activities that a second worker gets some.
const CONFIG_YAML = TINY_CONFIG_YAML.replace('isl: 128', 'isl: 1024')
  .replace('osl: 64', 'osl: 128')
  .replace('concurrency: 4', 'concurrency: 16')
  .replace('max_rounds: 2', 'max_rounds: 3')
  .replace('candidates_per_round: 2', 'candidates_per_round: 4')
  .replace('parallel_evals: 2', 'parallel_evals: 4');

let t: TestTemporal;
let local: SweepResult;

beforeAll(async () => {
  t = await connectTestTemporal();
  local = await runLocalSweep(parseConfigText(CONFIG_YAML));
});
afterAll(async () => {
  await t?.connection.close();
});

async function cliSweep(file: string, taskQueue: string): Promise<SweepResult> {
  const { io, out } = captureIo();
  expect(await main(['sweep', file, '--address', t.address, '--namespace', t.namespace, '--task-queue', taskQueue, '--json'], io), out.stderr).toBe(0);
  return JSON.parse(out.stdout) as SweepResult;
}

describe('waves on the sweep\'s own worker', () => {
  it('other live pollers: not this worker, not silent for over a long poll, not a dead process of this host', () => {
    const now = 1_000_000;
    const pollers = [
      { identity: 'me', lastAccessMs: now },
      { identity: 'w2', lastAccessMs: now - 5_000 },
      { identity: 'gone', lastAccessMs: now - POLLER_LIVE_MS - 1 },
      { identity: '111@here', lastAccessMs: now }, // a process of this host that exited
      { identity: '222@here', lastAccessMs: now }, // one that runs
      { identity: sweepWorkerIdentity(111, 'here'), lastAccessMs: now }, // a `spica sweep`'s worker, exited
      { identity: sweepWorkerIdentity(222, 'here'), lastAccessMs: now }, // one whose sweep runs
      { identity: '111@elsewhere', lastAccessMs: now }, // another host: cannot tell, so alive
      { identity: workerIdentity(111, 'here', 'ab12-cd34'), lastAccessMs: now }, // with its store's tag, exited
      { identity: sweepWorkerIdentity(222, 'here', 'ab12-cd34'), lastAccessMs: now }, // tagged, its sweep runs
    ].map((p) => ({ ...p, buildId: null }));
    const alive = (pid: number) => pid === 222;
    expect(otherLivePollers(pollers, 'me', now, 'here', alive).map((p) => p.identity)).toEqual([
      'w2',
      '222@here',
      '222@here:spica-sweep',
      '111@elsewhere',
      '222@here#store-ab12cd34:spica-sweep',
    ]);
    expect(['222@here#store-ab12cd34:spica-sweep', '111@here#store-0f', '222@here', 'other-worker'].map(storeTagOf)).toEqual(['ab12cd34', '0f', null, null]);
    expect([sweepWorkerIdentity(222, 'here'), '222@here', 'other-worker'].map(isSweepWorker)).toEqual([true, false, false]);
  });

  it('the sweep worker polls `here` while it asks: the wave\'s own waveHere then answers from that poll', async () => {
    let describes = 0;
    const counting = {
      workflowService: {
        describeTaskQueue: (req: Parameters<typeof t.connection.workflowService.describeTaskQueue>[0]) => {
          describes++;
          return t.connection.workflowService.describeTaskQueue(req);
        },
      },
    };
    const here = waveHereOn({ connection: counting as never, namespace: t.namespace, taskQueue: uniqueTaskQueue('here'), identity: 'me@test' });
    // Calls while a poll is under way share it.
    const [a, b] = await Promise.all([here(), here()]);
    expect(a).toEqual({ here: true, other_workers: 0 });
    expect(b).toEqual(a);
    expect(describes).toBe(1);
    await new Promise((r) => setTimeout(r, 1_100)); // past the answer's 1 s
    // The ask starts the poll at once (whatever the ask then does: here it fails on its input) …
    const asked = askAndMaterializeAsking(here)({} as never).catch(() => 'failed');
    expect(describes).toBe(2);
    // … and the wave's waveHere right after gets that poll's answer, no second request.
    expect(await here()).toEqual({ here: true, other_workers: 0 });
    expect(describes).toBe(2);
    expect(await asked).toBe('failed');
  });

  it('alone on its task queue, spica sweep replays every wave as local activities; the result equals --local', async () => {
    process.env.SPICA_CACHE_DIR = mkdtempSync(path.join(os.tmpdir(), 'spica-cache-here-'));
    const result = await cliSweep(writeTempConfig(CONFIG_YAML), uniqueTaskQueue('waves-here'));
    expect(neutralized(result)).toEqual(neutralized(local));
    const events = await branchHistory(t, result.sweep_id!);
    const { scheduled, local: markers } = replayWork(events);
    expect(scheduled).toEqual([]);
    expect(markers.filter((n) => n === 'replayWave').length).toBeGreaterThanOrEqual(3); // a wave per round at least
    expect(markers).toContain('waveHere');
  });

  it('with another worker polling, the waves are replay activities and that worker runs some of them; same result', async () => {
    process.env.SPICA_CACHE_DIR = mkdtempSync(path.join(os.tmpdir(), 'spica-cache-shared-'));
    const taskQueue = uniqueTaskQueue('waves-shared');
    // Another `spica sweep`'s worker (on another machine): it takes a share of the waves, but is not a
    // worker this sweep hands its run to (a `spica worker` would be: handed-over-sweep.test.ts).
    const otherId = sweepWorkerIdentity(4242, 'another-host');
    const other = await createSpicaWorker({ address: t.address, namespace: t.namespace, taskQueue, identity: otherId, concurrency: 2 });
    try {
      const result = await other.worker.runUntil(async () => {
        // The server lists the other worker once its first activity poll arrived.
        await expect
          .poll(async () => (await activityPollers(t.connection, t.namespace, taskQueue)).some((p) => p.identity === otherId), { timeout: 30_000, interval: 100 })
          .toBe(true);
        return cliSweep(writeTempConfig(CONFIG_YAML), taskQueue);
      });
      expect(neutralized(result)).toEqual(neutralized(local));
      const events = await branchHistory(t, result.sweep_id!);
      expect(replayWork(events).local).not.toContain('replayWave');
      const byEvent = new Map(events.map((e) => [Number(e.eventId), e]));
      const replaysBy = events.flatMap((e) => {
        const started = e.activityTaskStartedEventAttributes;
        const name = started ? byEvent.get(Number(started.scheduledEventId))?.activityTaskScheduledEventAttributes?.activityType?.name : undefined;
        return name === 'replayCandidate' || name === 'replayWave' ? [started!.identity ?? ''] : [];
      });
      expect(replaysBy.filter((id) => id === otherId).length).toBeGreaterThanOrEqual(1);
      expect(replaysBy.filter((id) => id !== otherId).length).toBeGreaterThanOrEqual(1); // and the sweep's own worker the rest
    } finally {
      await other.close();
    }
  });
});
