// While the Temporal server is unreachable (stopped, restarting, network gone) the SDK core logs a
// multi-line WARN for every retried gRPC call — every poller, query, history fetch and completion,
// a dozen lines a second from one `spica sweep` or `spica worker` — and keeps retrying. Those
// warnings are condensed here: the first of an outage says what failed in one line, the repeats are
// counted and summed up at most every OUTAGE_SUMMARY_MS; a warning after that long a silence starts
// a new outage. Every other log entry passes through untouched.
import type { LogEntry } from '@temporalio/worker';

export const OUTAGE_SUMMARY_MS = 30_000;

/**
 * The failure of a core warning caused by an unreachable server, in one line (`Unavailable: tcp
 * connect error (127.0.0.1:7233: Connection refused)`), or null for any other entry. The core
 * passes the gRPC status as text.
 */
export function serverUnavailableFailure(entry: LogEntry): string | null {
  if (entry.level !== 'WARN' || entry.meta?.sdkComponent !== 'core') return null;
  const error = entry.meta.error;
  if (typeof error !== 'string') return null;
  // Two spellings of the gRPC code: `Status { code: Unavailable, … }` and, for a failed completion,
  // `code: 'The service is currently unavailable', …`.
  const status = /code: (?:(Unavailable|DeadlineExceeded)|'(The service is currently unavailable|Deadline expired before operation could complete)'), message: "([^"]*)"/.exec(error);
  if (!status) return null;
  const code = status[1] ?? (status[2].startsWith('Deadline') ? 'DeadlineExceeded' : 'Unavailable');
  const connect = /ConnectError\("[^"]*", ([^,]+), Os \{[^}]*message: "([^"]*)"/.exec(error);
  return `${code}: ${status[3]}${connect ? ` (${connect[1]}: ${connect[2]})` : ''}`;
}

interface Outage {
  failure: string;
  /** When the last line about it was written, and the last warning seen. */
  reportedMs: number;
  lastSeenMs: number;
  /** Warnings seen since that line. */
  suppressed: number;
}

/** Turns the core's outage warnings into a line per outage and a count every OUTAGE_SUMMARY_MS. */
export class ServerOutageLog {
  private outage: Outage | null = null;

  /**
   * The text to write for `entry` seen at `nowMs`: `passThrough(entry)` for anything but an outage
   * warning, else the outage's first line, a summary, or null (counted, not written).
   */
  line(entry: LogEntry, nowMs: number, passThrough: (entry: LogEntry) => string): string | null {
    const failure = serverUnavailableFailure(entry);
    if (failure === null) return passThrough(entry);
    const when = new Date(nowMs).toISOString();
    const o = this.outage;
    if (o === null || nowMs - o.lastSeenMs > OUTAGE_SUMMARY_MS) {
      this.outage = { failure, reportedMs: nowMs, lastSeenMs: nowMs, suppressed: 0 };
      return `${when} [WARN] Temporal server unreachable (${failure}): ${entry.message}; the SDK keeps retrying (repeats summed up every ${OUTAGE_SUMMARY_MS / 1000} s)\n`;
    }
    o.lastSeenMs = nowMs;
    o.suppressed += 1;
    if (nowMs - o.reportedMs < OUTAGE_SUMMARY_MS) return null;
    const line = `${when} [WARN] Temporal server still unreachable (${failure}): ${o.suppressed} more retry warning(s) in the last ${Math.round((nowMs - o.reportedMs) / 1000)} s\n`;
    o.failure = failure;
    o.reportedMs = nowMs;
    o.suppressed = 0;
    return line;
  }
}
