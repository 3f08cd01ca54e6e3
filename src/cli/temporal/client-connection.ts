// Client connections with failures mapped to TemporalUnavailable (exit 3) and a hint (the worker's
// native connection: worker-connection.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type ConnectionOptions } from '@temporalio/client';
import { TemporalUnavailable } from '../../errors.js';
import { installLazyProtobufCodecs } from './lazy-protobuf-codecs.js';

export const START_SERVER_HINT = 'start one with `spica server` (and `spica worker`), or pass --address / set TEMPORAL_ADDRESS';

export async function connectClient(address: string, timeoutMs = 3_000): Promise<Connection> {
  installLazyProtobufCodecs();
  try {
    return await openClientConnection({ address, connectTimeout: timeoutMs });
  } catch (err) {
    throw new TemporalUnavailable(`cannot reach a Temporal server at ${address} (${(err as Error).message}); ${START_SERVER_HINT}`);
  }
}

/** A client connection that is safe to close while the SDK retries a call (every client connection the CLI opens). */
export function openClientConnection(options: Pick<ConnectionOptions, 'address' | 'connectTimeout'>): Promise<Connection> {
  return ClosableConnection.open(options);
}

/**
 * The SDK's client connection with its gRPC retries made safe to close under. The SDK's retry
 * interceptor retries a failed call (UNAVAILABLE, UNKNOWN, …) on a timer; a timer that fires after the
 * connection closed throws "Channel has been shut down" from the timer, an uncaught exception that ends
 * the process with exit 1 after its work was done (seen in CI: a handed-over sweep that finished while
 * a progress query to its killed worker was being retried). So once `close()` is called no new retry
 * is scheduled, and the retries already scheduled are waited out first (at most the SDK's 5-s backoff
 * cap; usually none is pending and the close is immediate).
 */
class ClosableConnection extends Connection {
  private closing = false;
  /** Epoch ms when the last scheduled retry fires. */
  private retriesUntilMs = 0;

  static async open(options: Pick<ConnectionOptions, 'address' | 'connectTimeout'>): Promise<ClosableConnection> {
    const base = defaultGrpcRetryOptions();
    let self: ClosableConnection | undefined;
    const interceptor = makeGrpcRetryInterceptor({
      retryableDecider: (attempt, status) => !self?.closing && base.retryableDecider(attempt, status),
      delayFunction: (attempt, status) => {
        const ms = base.delayFunction(attempt, status);
        if (self) self.retriesUntilMs = Math.max(self.retriesUntilMs, Date.now() + ms);
        return ms;
      },
    });
    const lazy = ClosableConnection.lazy({ ...options, interceptors: [interceptor] }) as ClosableConnection;
    self = lazy;
    await lazy.ensureConnected();
    return lazy;
  }

  override async close(): Promise<void> {
    this.closing = true;
    const pendingMs = this.retriesUntilMs - Date.now();
    if (pendingMs > 0) await sleep(pendingMs + 20);
    await super.close();
  }
}

