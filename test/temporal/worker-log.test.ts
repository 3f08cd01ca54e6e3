// The worker's log lines: bad input (a non-retryable activity failure and the workflow failure it
// becomes) is one line, not the SDK's metadata dump and stack trace ahead of the CLI's clean message.
import { runInNewContext } from 'node:vm';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { spicaLogLine } from '../../src/cli/temporal/worker.js';

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
});
