// `spica sweep`'s plan activity reuses the search-attribute listing the CLI's registration made on the
// connection its in-process worker shares (and stores the config meanwhile). That may not change what
// the activity returns: the SweepPlanned of an in-process run equals the one a cold `spica worker`
// process computes with its own listing.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { listedSearchAttributes } from '../../activities/listed-search-attributes.js';
import { main } from '../../src/cli/main.js';
import { ensureSearchAttributes } from '../../src/cli/temporal/search-attribute-registration.js';
import { describePollers, hasSweepWorker } from '../../src/cli/temporal/task-queue.js';
import { loadConfigFile } from '../../src/config/load.js';
import { SWEEP_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.js';
import type { sweep } from '../../workflows/sweep.js';
import type { SweepPlanned } from '../../workflows/sweep-types.js';
import { captureIo, spawnSpica, TINY_CONFIG_YAML, uniqueTaskQueue, useTestTemporal, writeTempConfig } from './harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TRACE = path.join(ROOT, 'examples/traces/mooncake-small.jsonl');
/** The tiny agg sweep on a trace (trace hash and trace-derived workload in the plan). */
const TRACE_CONFIG_YAML = TINY_CONFIG_YAML.replace(/workload:\n(  .*\n)+/, `workload:\n  trace_path: ${TRACE}\n`).replace('max_rounds: 2', 'max_rounds: 1');

const t = useTestTemporal();

/** What the `plan` local activity returned in a sweep run (its marker in the history). */
async function plannedOf(workflowId: string): Promise<SweepPlanned> {
  const history = await t.client.workflow.getHandle(workflowId).fetchHistory();
  for (const e of history.events ?? []) {
    const m = e.markerRecordedEventAttributes;
    if (m?.markerName !== 'core_local_activity') continue;
    const data = defaultPayloadConverter.fromPayload<{ activity_type: string }>(m.details!.data!.payloads![0]);
    if (data.activity_type === 'plan') return defaultPayloadConverter.fromPayload<SweepPlanned>(m.details!.result!.payloads![0]);
  }
  throw new Error(`no plan marker in ${workflowId}`);
}

describe('plan activity: search attributes', () => {
  it('remembers the search attributes a registration listed, per connection and namespace', async () => {
    const fresh = await Connection.connect({ address: t.address });
    try {
      expect(listedSearchAttributes(fresh, t.namespace)).toBeUndefined();
      const outcome = await ensureSearchAttributes(fresh, t.namespace, SWEEP_SEARCH_ATTRIBUTES);
      expect(outcome.added).toEqual([]);
      expect(listedSearchAttributes(fresh, t.namespace)).toEqual(expect.arrayContaining(Object.keys(SWEEP_SEARCH_ATTRIBUTES)));
      expect(listedSearchAttributes(fresh, `${t.namespace}-other`)).toBeUndefined();
      expect(listedSearchAttributes(t.connection, `${t.namespace}-other`)).toBeUndefined();
    } finally {
      await fresh.close();
    }
  });

  it('spica sweep (listing reused) plans exactly what a cold `spica worker` process plans', async () => {
    const file = writeTempConfig(TRACE_CONFIG_YAML);
    const warmQueue = uniqueTaskQueue('plan-warm');
    const { io, out } = captureIo();
    expect(await main(['sweep', file, '--address', t.address, '--task-queue', warmQueue, '--json'], io)).toBe(0);
    const warmId = /workflow id: (\S+)/.exec(out.stderr)![1];
    const warm = await plannedOf(warmId);

    const coldQueue = uniqueTaskQueue('plan-cold');
    const worker = spawnSpica(['worker', '--address', t.address, '--task-queue', coldQueue, '--concurrency', '2']);
    try {
      for (let i = 0; i < 600 && !hasSweepWorker(await describePollers(t.connection, t.namespace, coldQueue)); i++) {
        if (worker.child.exitCode !== null) throw new Error(`spica worker exited: ${worker.output().stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const coldId = `plan-cold-${coldQueue}`;
      await t.client.workflow.execute<typeof sweep>('sweep', { workflowId: coldId, taskQueue: coldQueue, args: [loadConfigFile(file)] });
      const cold = await plannedOf(coldId);
      expect(warm).toEqual(cold);
      expect(warm.traceSha256).toMatch(/^[0-9a-f]{64}$/);
      expect(warm.searchAttributes).toEqual(Object.keys(SWEEP_SEARCH_ATTRIBUTES));
    } finally {
      worker.child.kill('SIGTERM');
    }
    expect(await worker.exited).toBe(0);
  });
});
