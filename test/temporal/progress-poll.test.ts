// `spica sweep`'s progress loop must not outlive the sweep: a poll tick left pending after the result
// kept the process alive for up to a second after it printed the result.
import { describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { reportProgress, type FollowOutcome } from '../../src/cli/sweeps/progress-report.js';
import { liveSweepProgress } from '../../src/cli/sweeps/live-progress.js';
import { EVERY_ROUND_SIGNALS } from '../../workflows/branch-study.js';
import type { BranchProgress, SweepProgress } from '../../workflows/sweep-types.js';

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('spica sweep progress polling', () => {
  it('leaves no timer behind once the sweep is done', async () => {
    const before = timers();
    let finish!: () => void;
    const done = new Promise<FollowOutcome>((r) => (finish = () => r({ interrupted: true })));
    let queries = 0;
    const handle = {
      // Every query fails (no workflow task yet): the loop waits for its next tick or for `done`.
      query: async () => {
        queries++;
        throw new Error('no workflow task yet');
      },
    };
    const stderr: string[] = [];
    const polling = reportProgress({} as Client, handle as never, { stdout: () => undefined, stderr: (t) => stderr.push(t), isTty: false }, done);
    await new Promise((r) => setImmediate(r));
    expect(timers()).toBeGreaterThan(before); // waiting on its poll tick
    finish();
    await polling;
    expect(queries).toBeGreaterThan(0);
    expect(timers()).toBe(before);
  });

  it('a Ctrl-C does not wait for a query nobody answers, nor asks for a final one', async () => {
    let queries = 0;
    // No worker polls: the query would wait for its deadline (a minute).
    const handle = { query: () => (queries++, new Promise<SweepProgress>(() => undefined)) };
    let interrupt!: () => void;
    const done = new Promise<FollowOutcome>((r) => (interrupt = () => r({ interrupted: true })));
    const stderr: string[] = [];
    const polling = reportProgress({} as Client, handle as never, { stdout: () => undefined, stderr: (t) => stderr.push(t), isTty: false }, done);
    await new Promise((r) => setImmediate(r));
    expect(queries).toBe(1);
    interrupt();
    await polling; // returns: the test would time out otherwise
    expect(queries).toBe(1);
  });

  // The parent hears from a branch every round up to EVERY_ROUND_SIGNALS: until then its figures are the
  // branch's own as of the branch's last workflow task, and the branch is not asked (a query waits for
  // that task; one answered after the branch finished replayed its whole history on the worker).
  it('asks a running branch itself only once the parent may lag behind it', async () => {
    const branch = (round: number, trials_recorded: number): BranchProgress =>
      ({ deployment_mode: 'agg', workflowId: 'sweep-1/branch-agg', status: 'running', round, trials_recorded }) as BranchProgress;
    const asked: string[] = [];
    const client = {
      workflow: {
        getHandle: (id: string) => ({
          query: async () => {
            asked.push(id);
            return { ...branch(EVERY_ROUND_SIGNALS + 3, 99) };
          },
        }),
      },
    } as unknown as Client;
    const parent = (b: BranchProgress) => ({ query: async () => ({ phase: 'studying', stop_requested: false, branches: [b] }) as SweepProgress });

    const early = await liveSweepProgress(client, parent(branch(EVERY_ROUND_SIGNALS - 1, 40)));
    expect(asked).toEqual([]);
    expect(early.branches[0].trials_recorded).toBe(40);

    const late = await liveSweepProgress(client, parent(branch(EVERY_ROUND_SIGNALS, 64)));
    expect(asked).toEqual(['sweep-1/branch-agg']);
    expect(late.branches[0].trials_recorded).toBe(99);
  });
});
