// A rerun's workflow id: the first free `<base>-<n>`, found in O(log n) lookups (src/cli/temporal/free-workflow-id.ts).
import { describe, expect, it } from 'vitest';
import { nextFreeRun, startUnderFreeId, workflowIdUsed } from '../../src/cli/temporal/free-workflow-id.js';
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
    } finally {
      await Promise.all(started.map((id) => t.client.workflow.getHandle(id).terminate('test done').catch(() => undefined)));
    }
  });
});
