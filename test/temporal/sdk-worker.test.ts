// SpicaSdkWorker (src/cli/temporal/sdk-worker.ts): the workflow bundle runs in the workflows' own V8
// context only, not first in a throwaway one, and the workers it makes run sweeps as the SDK's do.
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { sweep } from '../../workflows/sweep.js';
import { createSpicaWorker } from '../../src/cli/temporal/worker.js';
import { parseConfigText } from '../../src/config/load.js';
import { SMALL_CONFIG_YAML, uniqueTaskQueue, useTestTemporal } from './harness.js';
import { splitOutcome } from '../../workflows/sweep-types.js';

const t = useTestTemporal();

/** Runs `fn` counting the V8 contexts made meanwhile. */
async function countingContexts<T>(fn: () => Promise<T>): Promise<{ value: T; contexts: number }> {
  const { createContext } = vm;
  let contexts = 0;
  vm.createContext = ((...args: Parameters<typeof createContext>) => {
    contexts++;
    return createContext(...args);
  }) as typeof createContext;
  try {
    return { value: await fn(), contexts };
  } finally {
    vm.createContext = createContext;
  }
}

async function runSmallSweep(worker: { runUntil: <R>(p: Promise<R>) => Promise<R> }, taskQueue: string, tag: string) {
  const handle = await t.client.workflow.start<typeof sweep>('sweep', { workflowId: `sdk-worker-${tag}-${taskQueue}`, taskQueue, args: [parseConfigText(SMALL_CONFIG_YAML)] });
  const { outcome, progress } = splitOutcome(await worker.runUntil(handle.result()));
  expect(outcome.counts.evaluated).toBeGreaterThan(0);
  expect(progress?.phase).toBe('done');
}

describe('SpicaSdkWorker', () => {
  it('evaluates the workflow bundle in one V8 context per worker (the SDK makes a second, throwaway one)', { timeout: 120_000 }, async () => {
    const taskQueue = uniqueTaskQueue('sdk-worker');
    const { value: spica, contexts } = await countingContexts(() => createSpicaWorker({ address: t.address, namespace: t.namespace, taskQueue, workflowsOnMainThread: true }));
    expect(contexts).toBe(1);
    try {
      await runSmallSweep(spica.worker, taskQueue, 'one-context');
    } finally {
      await spica.close();
    }
  });
});
