// Is a Temporal frontend answering at an address? Used to reuse running servers and to wait
// for a freshly spawned one (our own poll, not createLocal's fixed 5 s).
import type { Connection } from '@temporalio/client';
import { openClientConnection } from './client-connection.js';

/** One attempt: true when a gRPC GetSystemInfo round-trip succeeds within `timeoutMs`. */
export async function isTemporalReachable(address: string, timeoutMs = 1_000): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await openClientConnection({ address, connectTimeout: timeoutMs });
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => {});
  }
}

export interface WaitOptions {
  timeoutMs: number;
  intervalMs?: number;
  /** Checked between attempts; a returned string aborts the wait with that reason. */
  abortReason?: () => string | undefined;
}

/** Polls until reachable; returns undefined on success or the reason it gave up. */
export async function waitUntilReachable(address: string, opts: WaitOptions): Promise<string | undefined> {
  const deadline = Date.now() + opts.timeoutMs;
  const interval = opts.intervalMs ?? 250;
  for (;;) {
    const reason = opts.abortReason?.();
    if (reason) return reason;
    if (await isTemporalReachable(address, Math.min(2_000, Math.max(200, deadline - Date.now())))) return undefined;
    if (Date.now() >= deadline) return `no answer at ${address} within ${Math.round(opts.timeoutMs / 1000)} s`;
    await new Promise((r) => setTimeout(r, interval));
  }
}
