// `spica worker` warms its code with one tiny in-process sweep before it polls, and leaves nothing of
// it behind: no cached replay, no stored result, no workflow.
import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayPool } from '../../activities/replay-pool.js';
import { warmUpWorker } from '../../src/cli/temporal/worker-warm-up.js';
import { spawnPollingWorker, uniqueTaskQueue, useTestTemporal } from './harness.js';

const t = useTestTemporal();

describe('worker warm-up', () => {
  it('replays on the worker\'s own replay threads; skipped under the test hooks', async () => {
    const before = replayPool().stats().completed;
    expect(await warmUpWorker({})).toBeGreaterThan(0);
    expect(replayPool().stats().completed - before).toBeGreaterThanOrEqual(8);
    const after = replayPool().stats().completed;
    expect(await warmUpWorker({ SPICA_TEST_HOOKS: '1' })).toBeNull();
    expect(replayPool().stats().completed).toBe(after);
  });

  it('a `spica worker` polls only once warmed up, with nothing cached, stored or started', async () => {
    const taskQueue = uniqueTaskQueue('warm-up');
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'spica-warm-cache-'));
    const resultStore = mkdtempSync(path.join(os.tmpdir(), 'spica-warm-results-'));
    const w = await spawnPollingWorker(t, taskQueue, ['--cache-dir', cacheDir], { SPICA_RESULT_STORE: resultStore, SPICA_TEST_HOOKS: '' });
    try {
      expect(w.output().stderr).toMatch(/worker polling task queue .*, warmed up in \d+\.\d s; Ctrl-C to stop/);
      expect(readdirSync(cacheDir)).toEqual([]);
      expect(readdirSync(resultStore)).toEqual(['store-id']); // the store's id, which the worker's identity names
      const started = t.client.workflow.list({ query: `TaskQueue = '${taskQueue}'` });
      const ids: string[] = [];
      for await (const wf of started) ids.push(wf.workflowId);
      expect(ids).toEqual([]);
    } finally {
      w.child.kill('SIGTERM');
      await w.exited;
    }
  });
});
