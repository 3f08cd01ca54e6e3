// CLI-level tests of `spica sweep` (and of `spica worker`, behind --detach) against the shared dev server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { freePort } from '../../src/cli/temporal/free-port.js';
import { describePollers, hasSweepWorker } from '../../src/cli/temporal/task-queue.js';
import { defaultSweepWorkflowId } from '../../src/cli/temporal/workflow-id.js';
import { parseConfigText } from '../../src/config/load.js';
import type { SweepRunResult } from '../../workflows/sweep-types.js';
import {
  captureIo,
  connectTestTemporal,
  PARETO_CONFIG_YAML,
  spawnSpica,
  uniqueTaskQueue,
  writeTempConfig,
  type TestTemporal,
} from './harness.js';

let t: TestTemporal;

beforeAll(async () => {
  t = await connectTestTemporal();
});
afterAll(async () => {
  await t?.connection.close();
});

describe('spica sweep', () => {
  it('runs a sweep against --address with an in-process worker; reruns get a -2 suffix', async () => {
    const file = writeTempConfig(PARETO_CONFIG_YAML);
    const baseId = defaultSweepWorkflowId(parseConfigText(PARETO_CONFIG_YAML), 11);
    expect(baseId).toMatch(/^spica-[0-9a-f]{12}-11$/);
    const taskQueue = uniqueTaskQueue('cli-sweep');

    const first = captureIo();
    expect(await main(['sweep', file, '--address', t.address, '--task-queue', taskQueue, '--json'], first.io)).toBe(0);
    const result = JSON.parse(first.out.stdout) as SweepRunResult; // exactly one JSON document
    expect(result.workflowId).toBe(baseId);
    expect(result.labels.goal).toBe('pareto');
    expect(result.branches.map((b) => b.deployment_mode)).toEqual(['agg', 'disagg']);
    expect(first.out.stderr).toContain(`workflow id: ${baseId}`);

    const second = captureIo();
    expect(await main(['sweep', file, '--address', t.address, '--task-queue', taskQueue], second.io)).toBe(0);
    expect(second.out.stderr).toContain(`workflow id: ${baseId}-2`);
    expect(second.out.stdout).toContain(`sweep ${baseId}-2:`);
    expect(second.out.stdout).toMatch(/^ {2}agg: backends /m);
  });

  it('rejects a bad config with exit 2 before touching Temporal', async () => {
    const file = writeTempConfig(PARETO_CONFIG_YAML.replace('gpu_budget: 8', 'gpu_budget: zero'));
    const { io, out } = captureIo();
    expect(await main(['sweep', file, '--address', '127.0.0.1:1'], io)).toBe(2);
    expect(out.stderr).toContain('search_space.gpu_budget');
  });

  it('--detach exits 3 with a hint when no worker polls the task queue', async () => {
    const file = writeTempConfig(PARETO_CONFIG_YAML);
    const { io, out } = captureIo();
    const code = await main(['sweep', file, '--address', t.address, '--detach', '--task-queue', uniqueTaskQueue('nobody')], io);
    expect(code).toBe(3);
    expect(out.stderr).toMatch(/spica worker/);
    expect(out.stdout).toBe('');
  });

  it('--detach exits 3 when no server answers', async () => {
    const file = writeTempConfig(PARETO_CONFIG_YAML);
    const { io, out } = captureIo();
    expect(await main(['sweep', file, '--address', `127.0.0.1:${await freePort()}`, '--detach'], io)).toBe(3);
    expect(out.stderr).toMatch(/spica server/);
  });

  it('--detach returns the id when a `spica worker` polls; the worker runs it and stops on SIGTERM', async () => {
    const file = writeTempConfig(PARETO_CONFIG_YAML);
    const taskQueue = uniqueTaskQueue('detach');
    const id = `detached-${taskQueue}`;
    const worker = spawnSpica(['worker', '--address', t.address, '--task-queue', taskQueue, '--concurrency', '2']);
    try {
      // The server lists a poller once the worker's first long-poll arrived (after bundling).
      for (let i = 0; i < 600 && !hasSweepWorker(await describePollers(t.connection, t.namespace, taskQueue)); i++) {
        if (worker.child.exitCode !== null) throw new Error(`spica worker exited: ${worker.output().stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const { io, out } = captureIo();
      expect(await main(['sweep', file, '--address', t.address, '--detach', '--task-queue', taskQueue, '--id', id], io)).toBe(0);
      expect(out.stdout.trim()).toBe(id);
      const result = (await t.client.workflow.getHandle(id).result()) as SweepRunResult;
      expect(result.workflowId).toBe(id);
    } finally {
      worker.child.kill('SIGTERM');
    }
    expect(await worker.exited).toBe(0);
    expect(worker.output().stderr).toMatch(/shutting down/);
  });
});

