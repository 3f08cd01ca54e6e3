// End-to-end runs of the `sweep` workflow on the shared dev server with a real Spica worker.
import { spawn } from 'node:child_process';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { planBranchDimensions } from '../../src/search/dimensions.js';
import { SPICA_GOAL, SPICA_HARDWARE, SPICA_MODEL } from '../../workflows/search-attributes.js';
import { branchWorkflowId, progressQuery, type sweep } from '../../workflows/sweep.js';
import type { SweepRunResult } from '../../workflows/sweep-types.js';
import {
  BAD_CONFIG_YAML,
  connectTestTemporal,
  SMALL_CONFIG_YAML,
  uniqueTaskQueue,
  withSpicaWorker,
  type TestTemporal,
} from './harness.js';

let t: TestTemporal;
const taskQueue = uniqueTaskQueue('sweep-wf');

beforeAll(async () => {
  t = await connectTestTemporal();
});
afterAll(async () => {
  await t?.connection.close();
});

function expectMatchesPlan(result: SweepRunResult, workflowId: string): void {
  const expected = planBranchDimensions(parseConfigText(SMALL_CONFIG_YAML));
  expect(result.workflowId).toBe(workflowId);
  expect(result.labels).toEqual({ model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'h100_sxm', goal: 'throughput' });
  expect(result.seed).toBe(7);
  expect(result.branches.map((b) => b.deployment_mode)).toEqual(['agg', 'disagg']);
  // Each child returns exactly the branch the plan activity resolved for its mode.
  expect(result.branches.map((b) => b.branch)).toEqual(expected.branches);
}

describe('sweep workflow', () => {
  it('runs from a {configYaml} input: plan, one child per branch, merged result, search attributes, progress', async () => {
    const workflowId = `yaml-${taskQueue}`;
    await withSpicaWorker(t, taskQueue, async () => {
      const handle = await t.client.workflow.start<typeof sweep>('sweep', {
        workflowId,
        taskQueue,
        args: [{ configYaml: SMALL_CONFIG_YAML }],
      });
      const result = await handle.result();
      expectMatchesPlan(result, workflowId);

      const progress = await handle.query(progressQuery);
      expect(progress).toMatchObject({ phase: 'done', branchesPlanned: 2, branchesDone: 2 });
      expect(progress.branches.map((b) => [b.status, b.workflowId])).toEqual([
        ['done', branchWorkflowId(workflowId, 'agg')],
        ['done', branchWorkflowId(workflowId, 'disagg')],
      ]);

      const description = await handle.describe();
      expect(description.typedSearchAttributes.get(SPICA_MODEL)).toBe('meta-llama/Llama-3.1-8B-Instruct');
      expect(description.typedSearchAttributes.get(SPICA_HARDWARE)).toBe('h100_sxm');
      expect(description.typedSearchAttributes.get(SPICA_GOAL)).toBe('throughput');

      // The children exist under their deterministic ids and completed.
      const child = await t.client.workflow.getHandle(branchWorkflowId(workflowId, 'disagg')).describe();
      expect(child.type).toBe('branchStudy');
      expect(child.status.name).toBe('COMPLETED');
    });
  });

  it('runs from the validated config object (what `spica sweep` sends)', async () => {
    const workflowId = `object-${taskQueue}`;
    const config = parseConfigText(SMALL_CONFIG_YAML);
    const result = await withSpicaWorker(t, taskQueue, async () =>
      t.client.workflow.execute<typeof sweep>('sweep', { workflowId, taskQueue, args: [config] }),
    );
    expectMatchesPlan(result, workflowId);
  });

  it('can be started by the `temporal workflow start` CLI with a {configYaml} JSON input', async () => {
    const workflowId = `cli-${taskQueue}`;
    const input = JSON.stringify({ configYaml: SMALL_CONFIG_YAML });
    const result = await withSpicaWorker(t, taskQueue, async () => {
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = spawn(
          t.cliPath,
          ['workflow', 'start', '--address', t.address, '--namespace', t.namespace,
            '--type', 'sweep', '--task-queue', taskQueue, '--workflow-id', workflowId, '--input', input],
          { stdio: ['ignore', 'ignore', 'inherit'] },
        );
        child.on('error', reject);
        child.on('exit', resolve);
      });
      expect(code).toBe(0);
      return (await t.client.workflow.getHandle<typeof sweep>(workflowId).result()) as SweepRunResult;
    });
    expectMatchesPlan(result, workflowId);
  });

  it('fails (without retrying) on a bad config, carrying the validation text', async () => {
    const workflowId = `bad-${taskQueue}`;
    const err = await withSpicaWorker(t, taskQueue, async () =>
      t.client.workflow
        .execute<typeof sweep>('sweep', { workflowId, taskQueue, args: [{ configYaml: BAD_CONFIG_YAML, sourceName: 'bad.yaml' }] })
        .then(() => undefined, (e: unknown) => e),
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    // WorkflowFailedError → ActivityFailure → ApplicationFailure from the plan activity.
    const appFailure = (err as WorkflowFailedError).cause?.cause;
    expect(appFailure).toBeInstanceOf(ApplicationFailure);
    expect((appFailure as ApplicationFailure).type).toBe('ConfigInvalid');
    expect((appFailure as ApplicationFailure).nonRetryable).toBe(true);
    expect((appFailure as ApplicationFailure).message).toMatch(/bad\.yaml:\d+:\d+: search_space\.gpu_budget/);
    // One attempt only: the activity was not retried.
    const history = await t.client.workflow.getHandle(workflowId).fetchHistory();
    const started = (history.events ?? []).filter((e) => e.activityTaskStartedEventAttributes);
    expect(started).toHaveLength(1);
    expect(started[0].activityTaskStartedEventAttributes?.attempt).toBe(1);
  });
});
