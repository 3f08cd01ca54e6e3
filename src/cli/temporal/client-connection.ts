// Client connections with failures mapped to TemporalUnavailable (exit 3) and a hint (the worker's
// native connection: worker-connection.ts).
import { Connection } from '@temporalio/client';
import { TemporalUnavailable } from '../../errors.js';
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
