// CLI-level tests of `spica sweep` (and of `spica worker`, behind --detach) against the shared dev server.
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { freePort } from '../../src/cli/temporal/free-port.js';
import { describePollers, hasSweepWorker } from '../../src/cli/temporal/task-queue.js';
import { defaultSweepWorkflowId } from '../../src/cli/temporal/workflow-id.js';
import { parseConfigText } from '../../src/config/load.js';
import type { SweepResult } from '../../src/search/sweepResult.js';
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
  process.env.SPICA_CACHE_DIR = mkdtempSync(path.join(os.tmpdir(), 'spica-cache-'));
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
    const result = JSON.parse(first.out.stdout) as SweepResult; // exactly one JSON document
    expect(result.sweep_id).toBe(baseId);
    expect(result.question.goal.target).toBe('pareto');
    expect(result.branches.map((b) => b.deployment_mode)).toEqual(['agg', 'disagg']);
    expect(first.out.stderr).toContain(`workflow id: ${baseId}`);
    // Not a TTY: plain progress lines on stderr, ending with the finished sweep.
    expect(first.out.stderr).toMatch(/^progress: .*trials \d+\/\d+/m);

    const second = captureIo();
    expect(await main(['sweep', file, '--address', t.address, '--task-queue', taskQueue], second.io)).toBe(0);
    expect(second.out.stderr).toContain(`workflow id: ${baseId}-2`);
    expect(second.out.stdout).toContain(`sweep ${baseId}-2:`);
    expect(second.out.stdout).toMatch(/^Pareto front \(\d+\)/m);
    expect(second.out.stdout).toMatch(/^trials: \d+ — \d+ feasible/m);
    expect(second.out.stdout).toMatch(/^ {2}agg \(vllm\): 1 round\(s\)/m);
  });

  it('--local runs the same sweep without a server and prints the same SweepResult; --out writes the files', async () => {
    const file = writeTempConfig(PARETO_CONFIG_YAML);
    const outDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'spica-out-')), 'res');
    const taskQueue = uniqueTaskQueue('cli-local');
    const viaTemporal = captureIo();
    expect(await main(['sweep', file, '--address', t.address, '--task-queue', taskQueue, '--id', `local-cmp-${taskQueue}`, '--json'], viaTemporal.io)).toBe(0);
    const viaLocal = captureIo();
    // An unreachable address proves --local never connects.
    expect(await main(['sweep', file, '--local', '--json', '--out', outDir, '--address', '127.0.0.1:1'], viaLocal.io)).toBe(0);
    const a = JSON.parse(viaTemporal.out.stdout) as SweepResult;
    const b = JSON.parse(viaLocal.out.stdout) as SweepResult;
    expect(b.sweep_id).toBeNull();
    expect({ ...b, sweep_id: a.sweep_id, counts: { ...b.counts, cache_hits: 0 } }).toEqual({ ...a, counts: { ...a.counts, cache_hits: 0 } });
    expect(JSON.parse(readFileSync(path.join(outDir, 'result.json'), 'utf8'))).toEqual(b);
    expect(readFileSync(path.join(outDir, 'candidates.csv'), 'utf8').split('\n').length).toBeGreaterThan(b.candidates.length);
  });

  it('rejects a bad config with exit 2 before touching Temporal', async () => {
    const file = writeTempConfig(PARETO_CONFIG_YAML.replace('gpu_budget: 2', 'gpu_budget: zero'));
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
      const result = (await t.client.workflow.getHandle(id).result()) as SweepResult;
      expect(result.sweep_id).toBe(id);
    } finally {
      worker.child.kill('SIGTERM');
    }
    expect(await worker.exited).toBe(0);
    expect(worker.output().stderr).toMatch(/shutting down/);
  });
});

