// The worker's log lines: bad input (a non-retryable activity failure and the workflow failure it
// becomes) is one line, not the SDK's metadata dump and stack trace ahead of the CLI's clean message.
import { runInNewContext } from 'node:vm';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { spicaLogLine } from '../../src/cli/temporal/worker.js';
import { StoreUnavailable } from '../../src/errors.js';

const at = 1_764_748_800_000n * 1_000_000n; // 2025-12-03T08:00:00Z in ns

describe('worker log lines', () => {
  it('a non-retryable activity failure is one line naming the activity, the type and the message', () => {
    const error = ApplicationFailure.create({ type: 'TraceFormatError', message: 'bad.jsonl:3: not valid JSON', nonRetryable: true });
    const line = spicaLogLine({ level: 'WARN', message: 'Activity failed', timestampNanos: at, meta: { activityType: 'plan', taskToken: 'x', error } });
    expect(line).toBe('2025-12-03T08:00:00.000Z [WARN] activity plan failed, not retried (TraceFormatError): bad.jsonl:3: not valid JSON\n');
  });

  it('the workflow failure from the sandbox (a plain Error whose stack names ApplicationFailure) is one line', () => {
    const error = new Error('bad.jsonl:3: not valid JSON');
    error.stack = 'ApplicationFailure: bad.jsonl:3: not valid JSON\n    at sweep (null:null:null)';
    expect(spicaLogLine({ level: 'WARN', message: 'Workflow failed', timestampNanos: at, meta: { workflowId: 'spica-1', error } })).toBe(
      '2025-12-03T08:00:00.000Z [WARN] workflow spica-1 failed: bad.jsonl:3: not valid JSON\n',
    );
  });

  it('the workflow failure from the in-thread sandbox (an error of another realm) is one line too', () => {
    const error = runInNewContext("const e = new Error('bad.jsonl:3: not valid JSON'); e.stack = 'ApplicationFailure: bad.jsonl:3: not valid JSON\\n    at sweep (null:null:null)'; e") as Error;
    expect(error instanceof Error).toBe(false);
    expect(spicaLogLine({ level: 'WARN', message: 'Workflow failed', timestampNanos: at, meta: { workflowId: 'spica-1', error } })).toBe(
      '2025-12-03T08:00:00.000Z [WARN] workflow spica-1 failed: bad.jsonl:3: not valid JSON\n',
    );
  });

  it('anything else keeps its metadata (a retryable failure is worth its stack)', () => {
    const error = ApplicationFailure.create({ type: 'Transient', message: 'connection reset', nonRetryable: false });
    const line = spicaLogLine({ level: 'WARN', message: 'Activity failed', timestampNanos: at, meta: { activityType: 'replayCandidate', error } });
    expect(line).toMatch(/^2025-12-03T08:00:00.000Z \[WARN\] Activity failed \{/);
    expect(line).toContain("activityType: 'replayCandidate'");
    expect(line).toContain('connection reset');
    expect(spicaLogLine({ level: 'INFO', message: 'Worker started', timestampNanos: at })).toBe('2025-12-03T08:00:00.000Z [INFO] Worker started\n');
  });

  it('an attempt failed on an unreachable shared store is one line', () => {
    const error = new StoreUnavailable('PostgreSQL store postgresql://spica@db:5432/spica unreachable for 25 s (connect ECONNREFUSED 10.0.0.5:5432)');
    expect(spicaLogLine({ level: 'WARN', message: 'Activity failed', timestampNanos: at, meta: { activityType: 'askAndMaterialize', attempt: 2, error } })).toBe(
      '2025-12-03T08:00:00.000Z [WARN] activity askAndMaterialize failed (attempt 2): PostgreSQL store postgresql://spica@db:5432/spica unreachable for 25 s (connect ECONNREFUSED 10.0.0.5:5432)\n',
    );
  });

  it("the core's long-workflow-task note is one line", () => {
    const meta = { sdkComponent: 'core', target: 'temporalio_sdk_core::worker::workflow::managed_run', workflowType: 'branchStudy', workflowTaskDuration: 17092, eventId: 43, payloadUploadCount: 0, attempt: 1 };
    const message = '[TMPRL1104] 01a24703-873f-7539-8d69-c04b6d2006b3:43:1 Workflow task duration exceeded 5 seconds.';
    expect(spicaLogLine({ level: 'WARN', message, timestampNanos: at, meta })).toBe(
      "2025-12-03T08:00:00.000Z [WARN] [TMPRL1104] 01a24703-873f-7539-8d69-c04b6d2006b3:43:1 workflow task of branchStudy took 17.1 s (over the SDK's 5-s warning mark)\n",
    );
  });

  it('a workflow failed on an unreachable store, directly or through a child, is one line', () => {
    const message = 'PostgreSQL store postgresql://spica@db:5432/spica unreachable for 8 s (connect ECONNREFUSED 10.0.0.5:5432)';
    // As the failures cross the sandbox: errors carrying the failure's type.
    const branchError = Object.assign(new Error(message), { type: 'StoreUnavailable', nonRetryable: false });
    const sweepError = Object.assign(new Error('Child Workflow execution failed'), { cause: branchError });
    expect(spicaLogLine({ level: 'WARN', message: 'Workflow failed', timestampNanos: at, meta: { workflowId: 'spica-1/branch-agg', error: branchError } })).toBe(
      `2025-12-03T08:00:00.000Z [WARN] workflow spica-1/branch-agg failed: ${message}\n`,
    );
    expect(spicaLogLine({ level: 'WARN', message: 'Workflow failed', timestampNanos: at, meta: { workflowId: 'spica-1', error: sweepError } })).toBe(
      `2025-12-03T08:00:00.000Z [WARN] workflow spica-1 failed: ${message}\n`,
    );
  });
});
