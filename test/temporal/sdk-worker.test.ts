// SpicaSdkWorker (src/cli/temporal/worker.ts): the workflow bundle runs in the workflows' own V8
// context only, not first in a throwaway one, and the worker it makes runs sweeps as the SDK's does.
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { sweep } from '../../workflows/sweep.js';
import { createSpicaWorker } from '../../src/cli/temporal/worker.js';
import { parseConfigText } from '../../src/config/load.js';
import { SMALL_CONFIG_YAML, uniqueTaskQueue, useTestTemporal } from './harness.js';
import { splitOutcome } from '../../workflows/sweep-types.js';

const t = useTestTemporal();

describe('SpicaSdkWorker', () => {
  it('evaluates the workflow bundle in one V8 context per worker (the SDK makes a second, throwaway one)', { timeout: 120_000 }, async () => {
    const created: unknown[] = [];
    const createContext = vm.createContext;
    vm.createContext = ((...args: Parameters<typeof vm.createContext>) => {
      created.push(args[0]);
      return createContext(...args);
    }) as typeof vm.createContext;
    const taskQueue = uniqueTaskQueue('sdk-worker');
    let spica: Awaited<ReturnType<typeof createSpicaWorker>>;
    try {
      spica = await createSpicaWorker({ address: t.address, namespace: t.namespace, taskQueue, workflowsOnMainThread: true });
    } finally {
      vm.createContext = createContext;
    }
    expect(created).toHaveLength(1);
    try {
      const config = parseConfigText(SMALL_CONFIG_YAML);
      const handle = await t.client.workflow.start<typeof sweep>('sweep', { workflowId: `sdk-worker-${taskQueue}`, taskQueue, args: [config] });
      const outcome = await spica.worker.runUntil(handle.result());
      const { outcome: result, progress } = splitOutcome(outcome);
      expect(result.counts.evaluated).toBeGreaterThan(0);
      expect(progress?.phase).toBe('done');
    } finally {
      await spica.close();
    }
  });
});
