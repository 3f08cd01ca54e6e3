// `spica sweep`'s last progress line comes from the workflow's result (which carries the run's final
// progress) instead of one more `progress` query, which replays the closed workflow on the worker.
// The line must be the one the query gives; runs whose result carries no progress still query.
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { reportProgress } from '../../src/cli/sweeps/progress-report.js';
import { progressLine } from '../../src/cli/temporal/sweep-progress.js';
import { progressQuery, type sweep } from '../../workflows/sweep.js';
import { splitOutcome, type SweepOutcome, type SweepProgress } from '../../workflows/sweep-types.js';
import { captureIo, inlineResult, SMALL_CONFIG_YAML, uniqueTaskQueue, useTestTemporal, withSpicaWorker, writeTempConfig } from './harness.js';

const t = useTestTemporal();

const progressLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('progress: '));

/**
 * A handle on a real run whose `progress` queries are counted, and the `done` promise reportProgress
 * waits on: it settles with `value` once the first (live) query answered, as a sweep finishing
 * between two polls does.
 */
function countingHandle<T>(workflowId: string, value: T) {
  const real = t.client.workflow.getHandle<typeof sweep>(workflowId);
  const calls = { before: 0, after: 0 };
  let settled = false;
  let settle!: () => void;
  const done = new Promise<T>((r) => (settle = () => r(value))).finally(() => (settled = true));
  return {
    calls,
    done,
    handle: {
      query: async (q: typeof progressQuery): Promise<SweepProgress> => {
        if (settled) calls.after++;
        else calls.before++;
        const p = await real.query(q);
        settle();
        return p;
      },
    },
  };
}

describe('spica sweep final progress', () => {
  let workflowId: string;
  let outcome: SweepOutcome;
  let queried: SweepProgress;
  let cliStderr: string;
  const taskQueue = uniqueTaskQueue('final-progress');

  beforeAll(async () => {
    const { io, out } = captureIo();
    expect(await main(['sweep', writeTempConfig(SMALL_CONFIG_YAML), '--address', t.address, '--task-queue', taskQueue, '--json'], io)).toBe(0);
    cliStderr = out.stderr;
    workflowId = /workflow id: (\S+)/.exec(out.stderr)![1];
    outcome = await t.client.workflow.getHandle<typeof sweep>(workflowId).result();
    // What the CLI printed last before: the query of the closed run (a worker replays it to answer).
    queried = await withSpicaWorker(t, taskQueue, () => t.client.workflow.getHandle<typeof sweep>(workflowId).query(progressQuery));
  });

  it('the workflow result carries the final progress, equal to what the query of the closed run answers', () => {
    expect(queried.phase).toBe('done');
    expect(queried.branches.map((b) => b.status)).toEqual(['done', 'done']);
    expect(outcome.progress).toEqual(queried);
    // The SweepResult itself is unchanged: `progress` is no field of it.
    expect(inlineResult(outcome)).not.toHaveProperty('progress');
    expect(splitOutcome(outcome).progress).toEqual(queried);
  });

  it('`spica sweep` ends with the same progress line as the final query gave', () => {
    const lines = progressLines(cliStderr);
    expect(lines.at(-1)).toBe(`progress: ${progressLine(queried)}`);
    expect(lines.at(-1)).toMatch(/^progress: done · trials \d+\/\d+ · best /);
  });

  it('prints the final line from the result without querying once the run is done', async () => {
    const { calls, done, handle } = countingHandle(workflowId, { result: outcome });
    const { io, out } = captureIo();
    await withSpicaWorker(t, taskQueue, () => reportProgress(t.client, handle, io, done));
    expect(calls).toEqual({ before: 1, after: 0 });
    expect(progressLines(out.stderr).at(-1)).toBe(`progress: ${progressLine(queried)}`);
  });

  it('a result without progress (a run recorded before) still gets its final line from the query', async () => {
    const { outcome: bare } = splitOutcome(outcome);
    const { calls, done, handle } = countingHandle(workflowId, { result: bare as SweepOutcome });
    const { io, out } = captureIo();
    await withSpicaWorker(t, taskQueue, () => reportProgress(t.client, handle, io, done));
    expect(calls).toEqual({ before: 1, after: 1 });
    expect(progressLines(out.stderr).at(-1)).toBe(`progress: ${progressLine(queried)}`);
  });
});
