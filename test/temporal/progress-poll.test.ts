// `spica sweep`'s progress loop must not outlive the sweep: a poll tick left pending after the result
// kept the process alive for up to a second after it printed the result.
import { describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { reportProgress } from '../../src/cli/commands/sweep.js';

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('spica sweep progress polling', () => {
  it('leaves no timer behind once the sweep is done', async () => {
    const before = timers();
    let finish!: () => void;
    const done = new Promise<void>((r) => (finish = r));
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
});
