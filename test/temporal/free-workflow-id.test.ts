// A rerun's workflow id: the first free `<base>-<n>`, found in O(log n) lookups (src/cli/temporal/free-workflow-id.ts).
import { describe, expect, it } from 'vitest';
import { firstFreeRun, nextFreeRun, startUnderFreeId, workflowIdUsed } from '../../src/cli/temporal/free-workflow-id.js';
import { withRunSuffix } from '../../src/cli/temporal/workflow-id.js';
import { uniqueTaskQueue, useTestTemporal } from './harness.js';

const t = useTestTemporal();

describe('free workflow ids', () => {
  it('finds the first free run number after contiguous used ones by doubling and bisecting', async () => {
    for (const last of [1, 2, 3, 7, 8, 37, 1000]) {
      const probed: number[] = [];
      const free = await nextFreeRun(1, async (n) => {
        probed.push(n);
        return n <= last;
      });
      expect(free).toBe(last + 1);
      expect(probed.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(last + 1)) + 1);
    }
    // Runs past retention free the oldest numbers first: the first free one after a used one is still found.
    expect(await nextFreeRun(5, async (n) => n >= 5 && n <= 9)).toBe(10);
  });

  it('firstFreeRun: 1 for a config never run, else the first number after the used ones', async () => {
    const base = `never-run-${uniqueTaskQueue('free-id')}`;
    expect(await firstFreeRun(t.client, (n) => withRunSuffix(base, n))).toBe(1);
  });

  it('a rerun of an id used 37 times starts once refused, then under -38, after a few describes', { timeout: 60_000 }, async () => {
    const taskQueue = uniqueTaskQueue('free-id'); // nobody polls it: the runs stay open, their ids used
    const base = `free-id-${taskQueue}`;
    const started: string[] = [];
    for (let n = 1; n <= 37; n++) {
      await t.client.workflow.start('sweep', { workflowId: withRunSuffix(base, n), taskQueue, args: [{}] });
      started.push(withRunSuffix(base, n));
    }
    try {
      const attempts: string[] = [];
      let described = 0;
      expect(await workflowIdUsed(t.client, withRunSuffix(base, 37))).toBe(true);
      expect(await workflowIdUsed(t.client, withRunSuffix(base, 38))).toBe(false);
      // The same client, counting the handles it is asked for (one per describe).
      const countingClient = {
        workflow: {
          ...t.client.workflow,
          getHandle: (id: string) => {
            described++;
            return t.client.workflow.getHandle(id);
          },
        },
      } as unknown as typeof t.client;
      const handle = await startUnderFreeId(countingClient, (n) => withRunSuffix(base, n), (workflowId) => {
        attempts.push(workflowId);
        return t.client.workflow.start('sweep', { workflowId, taskQueue, args: [{}], workflowIdReusePolicy: 'REJECT_DUPLICATE' });
      });
      started.push(handle!.workflowId);
      expect(handle!.workflowId).toBe(withRunSuffix(base, 38));
      expect(attempts).toEqual([base, withRunSuffix(base, 38)]);
      expect(described).toBeLessThanOrEqual(12);

      // As `spica sweep` does it: the number looked up first (while its worker is created), then one start.
      described = 0;
      attempts.length = 0;
      const next = await firstFreeRun(countingClient, (n) => withRunSuffix(base, n));
      expect(next).toBe(39);
      expect(described).toBeLessThanOrEqual(13);
      const rerun = await startUnderFreeId(
        t.client,
        (n) => withRunSuffix(base, n),
        (workflowId) => {
          attempts.push(workflowId);
          return t.client.workflow.start('sweep', { workflowId, taskQueue, args: [{}], workflowIdReusePolicy: 'REJECT_DUPLICATE' });
        },
        undefined,
        Promise.resolve(next),
      );
      started.push(rerun!.workflowId);
      expect(attempts).toEqual([withRunSuffix(base, 39)]);
      // A number another process took meanwhile: refused once, then the next free one.
      attempts.length = 0;
      const raced = await startUnderFreeId(t.client, (n) => withRunSuffix(base, n), (workflowId) => {
        attempts.push(workflowId);
        return t.client.workflow.start('sweep', { workflowId, taskQueue, args: [{}], workflowIdReusePolicy: 'REJECT_DUPLICATE' });
      }, undefined, 39);
      started.push(raced!.workflowId);
      expect(attempts).toEqual([withRunSuffix(base, 39), withRunSuffix(base, 40)]);
    } finally {
      await Promise.all(started.map((id) => t.client.workflow.getHandle(id).terminate('test done').catch(() => undefined)));
    }
  });
});
