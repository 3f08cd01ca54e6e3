// The `sweep` workflow's inputs and failure modes on the shared dev server with a real Spica worker:
// raw YAML (Web UI / `temporal workflow start`), one child per branch under deterministic ids, and a
// bad config that fails at once instead of retrying.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalSweep } from '../../activities/local-sweep.js';
import { parseConfigText } from '../../src/config/load.js';
import type { SweepResult } from '../../src/search/sweepResult.js';
import { branchWorkflowId, progressQuery, type sweep } from '../../workflows/sweep.js';
import {
  BAD_CONFIG_YAML,
  connectTestTemporal,
  inlineResult,
  neutralized,
  SMALL_CONFIG_YAML,
  TINY_CONFIG_YAML,
  uniqueTaskQueue,
  withSpicaWorker,
  type TestTemporal,
} from './harness.js';

let t: TestTemporal;
let local: SweepResult;
const taskQueue = uniqueTaskQueue('sweep-wf');

beforeAll(async () => {
  t = await connectTestTemporal();
  process.env.SPICA_CACHE_DIR = mkdtempSync(path.join(os.tmpdir(), 'spica-cache-'));
  local = await runLocalSweep(parseConfigText(SMALL_CONFIG_YAML));
});
afterAll(async () => {
  await t?.connection.close();
});

describe('sweep workflow', () => {
  it('runs from a {configYaml} input: one child per branch, merged SweepResult equal to the local run', async () => {
    const workflowId = `yaml-${taskQueue}`;
    expect(local.branches.map((b) => b.deployment_mode)).toEqual(['agg', 'disagg']);
    await withSpicaWorker(t, taskQueue, async () => {
      const handle = await t.client.workflow.start<typeof sweep>('sweep', {
        workflowId,
        taskQueue,
        args: [{ configYaml: SMALL_CONFIG_YAML }],
      });
      const outcome = await handle.result();
      const result = inlineResult(outcome);
      expect(result.sweep_id).toBe(workflowId);
      expect(neutralized(result)).toEqual(neutralized(local));

      const progress = await handle.query(progressQuery);
      expect(progress.phase).toBe('done');
      // The result carries the final progress: exactly what the query of the closed run answers.
      expect(outcome.progress).toEqual(progress);
      expect(progress.branches.map((b) => [b.deployment_mode, b.status, b.workflowId, b.trials_done])).toEqual([
        ['agg', 'done', branchWorkflowId(workflowId, 'agg'), local.branches[0].trials],
        ['disagg', 'done', branchWorkflowId(workflowId, 'disagg'), local.branches[1].trials],
      ]);
      // The children exist under their deterministic ids and completed.
      const child = await t.client.workflow.getHandle(branchWorkflowId(workflowId, 'disagg')).describe();
      expect(child.type).toBe('branchStudy');
      expect(child.status.name).toBe('COMPLETED');
    });
  });

  it('a workflow id run again on the same worker and store keeps each run\'s trials apart (chunks under the run id)', async () => {
    // `temporal workflow start --workflow-id X` twice, or two servers sharing one store: the id repeats.
    const workflowId = `again-${taskQueue}`;
    const first = parseConfigText(TINY_CONFIG_YAML);
    const second = parseConfigText(TINY_CONFIG_YAML.replace('concurrency: 4', 'concurrency: 8').replace('seed: 5', 'seed: 6'));
    const expected = await runLocalSweep(second);
    await withSpicaWorker(t, taskQueue, async () => {
      await (await t.client.workflow.start<typeof sweep>('sweep', { workflowId, taskQueue, args: [first] })).result();
      const again = inlineResult(await (await t.client.workflow.start<typeof sweep>('sweep', { workflowId, taskQueue, args: [second] })).result());
      expect(neutralized(again)).toEqual(neutralized(expected));
    });
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
      return inlineResult(await t.client.workflow.getHandle<typeof sweep>(workflowId).result());
    });
    expect(neutralized(result)).toEqual(neutralized(local));
  });

  it('fails (without retrying) on a bad config, carrying the validation text', async () => {
    const workflowId = `bad-${taskQueue}`;
    const err = await withSpicaWorker(t, taskQueue, async () =>
      t.client.workflow
        .execute<typeof sweep>('sweep', { workflowId, taskQueue, args: [{ configYaml: BAD_CONFIG_YAML, sourceName: 'bad.yaml' }] })
        .then(() => undefined, (e: unknown) => e),
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    // The plan activity's ApplicationFailure is the run's failure itself (not "Activity task failed").
    const appFailure = (err as WorkflowFailedError).cause;
    expect(appFailure).toBeInstanceOf(ApplicationFailure);
    expect((appFailure as ApplicationFailure).details?.[0]).toMatchObject({ exit_code: 2 });
    expect((appFailure as ApplicationFailure).type).toBe('ConfigInvalid');
    expect((appFailure as ApplicationFailure).nonRetryable).toBe(true);
    expect((appFailure as ApplicationFailure).message).toMatch(/bad\.yaml:\d+:\d+: search_space\.gpu_budget/);
    // One attempt only: the plan (a local activity since PLAN_LOCAL_PATCH) was not retried. Its one
    // marker records attempt 1; a retry would have run before the marker, recording a later attempt.
    const history = await t.client.workflow.getHandle(workflowId).fetchHistory();
    const marks = (history.events ?? [])
      .map((e) => e.markerRecordedEventAttributes)
      .filter((m) => m?.markerName === 'core_local_activity')
      .map((m) => JSON.parse(Buffer.from(m!.details!.data!.payloads![0].data!).toString()) as { activity_type: string; attempt: number });
    expect(marks).toEqual([expect.objectContaining({ activity_type: 'plan', attempt: 1 })]);
    expect((history.events ?? []).filter((e) => e.activityTaskStartedEventAttributes)).toHaveLength(0);
  });
});
