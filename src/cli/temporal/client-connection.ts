// Client/worker connections with failures mapped to TemporalUnavailable (exit 3) and a hint.
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { TemporalUnavailable } from '../../errors.js';
import { decodeEagerStartTaskLazily } from './eager-start-response.js';
import { installLazyProtobufCodecs } from './lazy-protobuf-codecs.js';

export const START_SERVER_HINT = 'start one with `spica server` (and `spica worker`), or pass --address / set TEMPORAL_ADDRESS';

export async function connectClient(address: string, timeoutMs = 3_000): Promise<Connection> {
  installLazyProtobufCodecs();
  try {
    return await Connection.connect({ address, connectTimeout: timeoutMs });
  } catch (err) {
    throw new TemporalUnavailable(`cannot reach a Temporal server at ${address} (${(err as Error).message}); ${START_SERVER_HINT}`);
  }
}

export async function connectWorker(address: string): Promise<NativeConnection> {
  installLazyProtobufCodecs();
  decodeEagerStartTaskLazily();
  try {
    return await NativeConnection.connect({ address });
  } catch (err) {
    throw new TemporalUnavailable(`cannot reach a Temporal server at ${address} (${(err as Error).message}); ${START_SERVER_HINT}`);
  }
}
