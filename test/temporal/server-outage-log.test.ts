// The SDK core's retry warnings while the Temporal server is unreachable, condensed (server-outage-log.ts).
import type { LogEntry } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { OUTAGE_SUMMARY_MS, ServerOutageLog, serverUnavailableFailure } from '../../src/cli/temporal/server-outage-log.js';

// As SDK 1.24's core forwards them (seen with a killed dev server).
const REFUSED =
  'Status { code: Unavailable, message: "tcp connect error", source: Some(tonic::transport::Error(Transport, ConnectError(ConnectError("tcp connect error", 127.0.0.1:7233, Os { code: 111, kind: ConnectionRefused, message: "Connection refused" })))) }';
const retried = (call: string, n: number, error = REFUSED): LogEntry => ({
  level: 'WARN',
  message: `gRPC call ${call} retried ${n} times`,
  timestampNanos: 0n,
  meta: { sdkComponent: 'core', target: 'temporalio_client::retry', spanContexts: undefined, error },
});
const other = (message: string): LogEntry => ({ level: 'WARN', message, timestampNanos: 0n });
const pass = (e: LogEntry) => `passed: ${e.message}\n`;
const T0 = Date.parse('2026-12-05T16:00:00Z');

describe('server outage log', () => {
  it('reads the failure of an unreachable server from the core status text, nothing else', () => {
    expect(serverUnavailableFailure(retried('query_workflow', 5))).toBe('Unavailable: tcp connect error (127.0.0.1:7233: Connection refused)');
    expect(serverUnavailableFailure(retried('poll_workflow_task_queue', 1, 'Status { code: Unavailable, message: "transport error", source: None }'))).toBe(
      'Unavailable: transport error',
    );
    // A failed workflow activation completion spells the code out.
    const completion = {
      level: 'WARN' as const,
      message: 'Error while completing workflow activation',
      timestampNanos: 0n,
      meta: {
        sdkComponent: 'core',
        error: `code: 'The service is currently unavailable', message: "tcp connect error", source: tonic::transport::Error(Transport, ConnectError(ConnectError("tcp connect error", 127.0.0.1:7233, Os { code: 111, kind: ConnectionRefused, message: "Connection refused" })))`,
      },
    };
    expect(serverUnavailableFailure(completion)).toBe('Unavailable: tcp connect error (127.0.0.1:7233: Connection refused)');
    expect(serverUnavailableFailure(retried('start_workflow', 1, 'Status { code: PermissionDenied, message: "no", source: None }'))).toBeNull();
    expect(serverUnavailableFailure({ ...retried('x', 1), meta: { sdkComponent: 'worker', error: REFUSED } })).toBeNull();
    expect(serverUnavailableFailure({ ...retried('x', 1), level: 'ERROR' })).toBeNull();
    expect(serverUnavailableFailure(other('Activity failed'))).toBeNull();
  });

  it('writes the first warning of an outage in one line, counts the repeats and sums them up every 30 s', () => {
    const log = new ServerOutageLog();
    const first = log.line(retried('poll_workflow_task_queue', 6), T0, pass);
    expect(first).toBe(
      '2026-12-05T16:00:00.000Z [WARN] Temporal server unreachable (Unavailable: tcp connect error (127.0.0.1:7233: Connection refused)): ' +
        'gRPC call poll_workflow_task_queue retried 6 times; the SDK keeps retrying (repeats summed up every 30 s)\n',
    );
    const lines: (string | null)[] = [];
    for (let i = 1; i <= 60; i++) lines.push(log.line(retried('query_workflow', i), T0 + i * 500, pass));
    const written = lines.filter((l) => l !== null);
    expect(written).toEqual(['2026-12-05T16:00:30.000Z [WARN] Temporal server still unreachable (Unavailable: tcp connect error (127.0.0.1:7233: Connection refused)): 60 more retry warning(s) in the last 30 s\n']);
    // Other entries pass through meanwhile.
    expect(log.line(other('Activity failed'), T0 + 31_000, pass)).toBe('passed: Activity failed\n');
  });

  it('starts a new outage after a silence longer than the summary period', () => {
    const log = new ServerOutageLog();
    expect(log.line(retried('query_workflow', 5), T0, pass)).not.toBeNull();
    expect(log.line(retried('query_workflow', 6), T0 + 1_000, pass)).toBeNull();
    const again = log.line(retried('poll_activity_task_queue', 5), T0 + 1_000 + OUTAGE_SUMMARY_MS + 1, pass);
    expect(again).toMatch(/\[WARN\] Temporal server unreachable \(.*\): gRPC call poll_activity_task_queue retried 5 times; the SDK keeps retrying/);
  });
});
