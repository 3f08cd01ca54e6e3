// A Ctrl-C that falls between a run's completion and this process reading its result: `spica sweep`
// (own worker or handed over) and `spica resume` then print the result, rather than saying the run
// goes on. Made deterministic with a run that completed before and a signal aborted from the start.
import type { WorkflowHandle } from '@temporalio/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { followHandedOverRun } from '../../src/cli/sweeps/handed-over-sweep.js';
import { runOnOwnWorker } from '../../src/cli/sweeps/in-process-sweep.js';
import type { SweepResult } from '../../src/search/sweepResult.js';
import type { sweep } from '../../workflows/sweep.js';
import { captureIo, inlineResult, TINY_CONFIG_YAML, uniqueTaskQueue, useTestTemporal, writeTempConfig } from './harness.js';

const t = useTestTemporal();
const taskQueue = uniqueTaskQueue('late-interrupt');
const id = `late-interrupt-${taskQueue}`;
let expected: SweepResult;

beforeAll(async () => {
  const { io } = captureIo();
  expect(await main(['sweep', writeTempConfig(TINY_CONFIG_YAML), '--address', t.address, '--namespace', t.namespace, '--task-queue', taskQueue, '--id', id], io)).toBe(0);
  expected = inlineResult(await t.client.workflow.getHandle(id).result());
}, 120_000);

describe('interrupted after the run completed', () => {
  const aborted = () => {
    const ac = new AbortController();
    ac.abort();
    return ac.signal;
  };

  it('own worker: the result, not "stays on the server"', async () => {
    const { io, out } = captureIo();
    const target = { address: t.address, namespace: t.namespace, taskQueue };
    const outcome = await runOnOwnWorker(target, io, aborted(), () => undefined, (client) => async () => client.workflow.getHandle(id) as WorkflowHandle<typeof sweep>);
    expect(outcome).toEqual({ result: expected });
    expect(out.stderr).toContain(`interrupted, but workflow ${id} had completed: its result follows`);
    expect(out.stderr).not.toContain('stays on the server');
  });

  it('handed over: the result, not "keeps running on the workers"', async () => {
    const { io, out } = captureIo();
    const handle = t.client.workflow.getHandle(id) as WorkflowHandle<typeof sweep>;
    const target = { address: t.address, namespace: t.namespace, taskQueue, connection: t.connection, workers: 1 };
    expect(await followHandedOverRun(t.client, handle, io, aborted(), target)).toEqual({ result: expected });
    expect(out.stderr).toContain(`interrupted, but workflow ${id} had completed: its result follows`);
    expect(out.stderr).not.toContain('keeps running');
  });
});
