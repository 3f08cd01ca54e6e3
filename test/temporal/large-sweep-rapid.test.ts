// Issue 16 item 1 under `policy: rapid` on real servers: a bayesian sweep of 10,521 trials over two
// branches (7,680 told to the disagg branch's optimizer), terminated part-way and finished by
// `spica resume`, on two workers sharing PostgreSQL. The optimizer's told trials (~330 B each: they
// passed 1 MB near 3,000 trials when carried) stay in the stored trial chunks: the carried state and
// the branch result hold only a count of them, the ask activity rebuilds them. The result is the one
// an uninterrupted --local run gives (same asks), and no payload grows with the trials.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runLocalSweep } from '../../activities/local-sweep.js';
import { historyEvents } from '../../src/cli/temporal/history-payloads.js';
import { parseConfigText } from '../../src/config/load.js';
import type { SweepResult } from '../../src/search/sweepResult.js';
import { branchWorkflowId } from '../../workflows/sweep.js';
import type { BranchStudyInput } from '../../workflows/sweep-types.js';
import { createTestDatabase } from '../support/postgres.js';
import { largeSweepYaml, runLargeSweep } from '../support/large-sweep.js';
import { connectTestTemporal, type TestTemporal } from './harness.js';

let t: TestTemporal;
let storeUrl = '';

beforeAll(async () => {
  t = await connectTestTemporal();
  storeUrl = await createTestDatabase(inject('postgresUrl'), 'spica_large_rapid');
});
afterAll(async () => {
  await t?.connection.close();
});

/** What the optimizer decided, row by row (ids, persistent cache hits and deployments aside). */
const decisions = (r: SweepResult) => r.candidates.map((c) => [c.branch, c.round, JSON.stringify(c.point), c.status, c.score, c.cache_hit]);

describe('a rapid sweep of more than 10,000 trials', () => {
  it('completes after a resume with the optimizer state bounded, and asks what an uninterrupted run asks', { timeout: 1_200_000 }, async () => {
    const yaml = largeSweepYaml({ policy: 'rapid' });
    const f = await runLargeSweep({ client: t.client, address: t.address, namespace: t.namespace, storeUrl, yaml, terminateAt: 0.1, log: (l) => process.stderr.write(`rapid sweep: ${l}\n`) });
    // The largest state a branch carried across continue-as-new, and how many told trials it left to the store.
    let told = 0;
    for (const id of f.sweepIds) {
      const branch = branchWorkflowId(id, 'disagg');
      for await (const w of t.client.workflow.list({ query: `WorkflowId = '${branch}'` })) {
        for await (const e of historyEvents(t.client, branch, w.runId)) {
          const payload = e.workflowExecutionContinuedAsNewEventAttributes?.input?.payloads?.[0];
          if (!payload?.data) continue;
          const carried = JSON.parse(Buffer.from(payload.data).toString('utf8')) as BranchStudyInput;
          told = Math.max(told, carried.carry?.told_in_store ?? 0);
          expect(carried.carry!.state.optimizer!.trials).toEqual([]);
        }
      }
    }
    const canBytes = f.payloads.largestByType.WorkflowExecutionContinuedAsNew ?? 0;
    process.stderr.write(
      `rapid sweep: ${f.result.counts.evaluated} trials, largest payload ${f.payloads.largest.bytes} B (${f.payloads.largest.eventType} in ${f.payloads.largest.workflowId}), ` +
        `largest continue-as-new state ${canBytes} B with ${told} told trials left to the store, largest history ${f.payloads.largestHistoryBytes} B over ` +
        `${f.payloads.runs} runs / ${f.payloads.events} events; wall ${(f.firstRunSeconds + f.resumeSeconds).toFixed(1)} s, worker CPU ${f.workerCpuSeconds?.toFixed(1)} s\n`,
    );
    expect(f.result.counts.evaluated).toBeGreaterThanOrEqual(10_000);
    expect(f.result.branches.find((b) => b.deployment_mode === 'disagg')!.trials).toBeGreaterThan(7_000);
    expect(f.payloads.largest.bytes).toBeLessThan(1_000_000);
    // Carried (at ~330 B a told trial) these would be > 1 MB; the carried state stays a few KB (5.6 KB measured).
    expect(told).toBeGreaterThan(3_000);
    expect(canBytes).toBeGreaterThan(0);
    expect(canBytes).toBeLessThan(32 * 1024);
    expect(f.trialsAtTermination).toBeGreaterThan(0);

    const local = await runLocalSweep(parseConfigText(yaml));
    expect(decisions(f.result)).toEqual(decisions(local));
  });
});
