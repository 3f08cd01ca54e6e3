// A sweep runs on workers of its own build only (src/cli/temporal/spica-build.ts): with a worker of
// another checkout polling its task queue, `spica sweep` (own worker or handed over) and `--detach`
// refuse with exit 3 and start nothing, since that worker would take some of the run's tasks; a
// `spica worker` joining such a queue and `spica schedule create` for it warn.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { buildIdOf, spicaBuildId } from '../../src/cli/temporal/spica-build.js';
import { describePollers, foreignBuilds, foreignList } from '../../src/cli/temporal/task-queue.js';
import { createSpicaWorker, spicaReplayOptions } from '../../src/cli/temporal/worker.js';
import { captureIo, spawnSpica, TINY_CONFIG_YAML, uniqueTaskQueue, useTestTemporal, writeTempConfig } from './harness.js';

const t = useTestTemporal();
const file = (path: string, text: string) => ({ path, content: new TextEncoder().encode(text) });

describe('build id', () => {
  it('hashes paths and contents, whatever the listing order', () => {
    const a = [file('src/a.ts', 'x'), file('systems/h100.yaml', 'y')];
    expect(buildIdOf(a)).toMatch(/^spica-[0-9a-f]{16}$/);
    expect(buildIdOf([...a].reverse())).toBe(buildIdOf(a));
    expect(buildIdOf([file('src/a.ts', 'x '), a[1]])).not.toBe(buildIdOf(a));
    expect(buildIdOf([file('src/b.ts', 'x'), a[1]])).not.toBe(buildIdOf(a));
    // Path and content are delimited: moving a character across the boundary changes the id.
    expect(buildIdOf([file('src/a.tsx', '')])).not.toBe(buildIdOf([file('src/a.ts', 'x')]));
  });

  it('reads the inputs from a checkout: same files, same id on any copy; a missing input is no error; editor leftovers do not count', () => {
    const checkout = (yaml: string, extra: Record<string, string> = {}) => {
      const root = mkdtempSync(path.join(os.tmpdir(), 'spica-build-'));
      const files = { 'src/cli/main.ts': 'export {};', 'systems/h100_sxm.yaml': yaml, ...extra };
      for (const [rel, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
        writeFileSync(path.join(root, rel), text);
      }
      return spicaBuildId(root);
    };
    const id = checkout('gpu: h100');
    expect(checkout('gpu: h100')).toBe(id);
    expect(checkout('gpu: h100', { 'src/cli/.main.ts.swp': 'x', 'systems/notes.txt': 'y' })).toBe(id);
    expect(checkout('gpu: h200')).not.toBe(id);
    expect(checkout('gpu: h100', { 'package-lock.json': '{}' })).not.toBe(id);
  });

  it("this checkout's id is stable in a process and is what its workers report", async () => {
    expect(spicaBuildId()).toBe(spicaBuildId());
    const taskQueue = uniqueTaskQueue('own-build');
    const spica = await createSpicaWorker({ address: t.address, namespace: t.namespace, taskQueue });
    try {
      await spica.worker.runUntil(async () => {
        for (let i = 0; (await describePollers(t.connection, t.namespace, taskQueue)).workflowPollers === 0; i++) {
          if (i > 300) throw new Error('the worker did not poll');
          await new Promise((r) => setTimeout(r, 100));
        }
        expect((await describePollers(t.connection, t.namespace, taskQueue)).foreign).toEqual([]);
      });
    } finally {
      await spica.close();
    }
  });

  it('foreignBuilds: other or unreported builds, one entry per identity', () => {
    const p = (identity: string, buildId: string | null) => ({ identity, lastAccessMs: 0, buildId });
    const list = [p('a', 'spica-1'), p('b', 'spica-2'), p('b', 'spica-2'), p('c', null)];
    expect(foreignBuilds(list, 'spica-1').map((x) => x.identity)).toEqual(['b', 'c']);
    // Named with their build and how long ago they last polled (a worker just stopped stays listed).
    expect(foreignList([{ identity: 'b', lastAccessMs: 10_000, buildId: 'spica-2' }, { identity: 'c', lastAccessMs: 49_600, buildId: null }], 52_000)).toBe(
      'b (build spica-2, last poll 42 s ago), c (build not reported, last poll 2 s ago)',
    );
  });
});

describe('a task queue polled by a worker of another build', () => {
  it('spica sweep and --detach exit 3, name that worker and start nothing, with or without a worker of this build beside it; spica worker and schedule create warn', async () => {
    const taskQueue = uniqueTaskQueue('foreign');
    const config = writeTempConfig(TINY_CONFIG_YAML);
    const olderConnection = await NativeConnection.connect({ address: t.address });
    const older = await Worker.create({
      ...(await spicaReplayOptions()),
      connection: olderConnection,
      namespace: t.namespace,
      taskQueue,
      identity: 'older-checkout@elsewhere',
      buildId: 'spica-00000000000000aa',
    });
    const refused = async (extra: string[]) => {
      const id = `foreign-${taskQueue}-${extra.length}`;
      const { io, out } = captureIo();
      const code = await main(['sweep', config, '--address', t.address, '--namespace', t.namespace, '--task-queue', taskQueue, '--id', id, ...extra], io);
      expect({ code, stdout: out.stdout }).toEqual({ code: 3, stdout: '' });
      expect(out.stderr).toMatch(/older-checkout@elsewhere \(build spica-00000000000000aa, last poll \d+ s ago\)/);
      expect(out.stderr).toContain('a worker stopped on another machine stays listed until 70 s after its last poll');
      expect(out.stderr).toContain(spicaBuildId());
      await expect(t.client.workflow.getHandle(id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    };
    try {
      await older.runUntil(async () => {
        for (let i = 0; (await describePollers(t.connection, t.namespace, taskQueue)).foreign.length === 0; i++) {
          if (i > 300) throw new Error('the older worker did not poll');
          await new Promise((r) => setTimeout(r, 100));
        }
        await refused([]);
        await refused(['--detach']);
        // A schedule is created (it is not a run), with a warning naming that worker.
        const scheduleId = `sched-${taskQueue}`;
        const schedule = captureIo();
        expect(await main(['schedule', 'create', config, '--cron', '0 2 * * *', '--id', scheduleId, '--task-queue', taskQueue, '--address', t.address, '--namespace', t.namespace], schedule.io)).toBe(0);
        expect(schedule.out.stderr).toMatch(/another Spica build: older-checkout@elsewhere \(build spica-00000000000000aa, last poll \d+ s ago\); scheduled runs they take/);
        await t.client.schedule.getHandle(scheduleId).delete();
        // A `spica worker` joining that queue says so before it polls.
        const joining = spawnSpica(['worker', '--address', t.address, '--namespace', t.namespace, '--task-queue', taskQueue, '--concurrency', '1']);
        try {
          for (let i = 0; !joining.output().stderr.includes('worker polling'); i++) {
            if (joining.child.exitCode !== null || i > 600) throw new Error(`spica worker did not start:\n${joining.output().stderr}`);
            await new Promise((r) => setTimeout(r, 100));
          }
          expect(joining.output().stderr).toMatch(/warning: task queue '[^']+' is also polled by worker\(s\) of another Spica build: older-checkout@elsewhere \(build spica-00000000000000aa, last poll \d+ s ago\)/);
          expect(joining.output().stderr).toContain(`build ${spicaBuildId()}`);
        } finally {
          joining.child.kill('SIGTERM');
          await joining.exited;
        }
        // A worker of this build polling too: the run would be handed over, and still reach the other.
        const own = await createSpicaWorker({ address: t.address, namespace: t.namespace, taskQueue });
        try {
          await own.worker.runUntil(async () => {
            for (let i = 0; (await describePollers(t.connection, t.namespace, taskQueue)).workflowPollers < 2; i++) {
              if (i > 300) throw new Error('the worker of this build did not poll');
              await new Promise((r) => setTimeout(r, 100));
            }
            await refused(['--json']);
          });
        } finally {
          await own.close();
        }
      });
    } finally {
      await olderConnection.close();
    }
  });
});
