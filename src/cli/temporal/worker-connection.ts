// The native (Rust core) connection a worker polls over. Its own module: importing it loads the
// worker SDK and its native library, which a client-only command (`spica status`, a `spica sweep`
// handed to the workers already polling) never needs.
import { NativeConnection } from '@temporalio/worker';
import { TemporalUnavailable } from '../../errors.js';
import { START_SERVER_HINT } from './client-connection.js';
import { decodeEagerStartTaskLazily } from './eager-start-response.js';
import { installLazyProtobufCodecs } from './lazy-protobuf-codecs.js';

export async function connectWorker(address: string): Promise<NativeConnection> {
  installLazyProtobufCodecs();
  decodeEagerStartTaskLazily();
  try {
    return await NativeConnection.connect({ address });
  } catch (err) {
    throw new TemporalUnavailable(`cannot reach a Temporal server at ${address} (${(err as Error).message}); ${START_SERVER_HINT}`);
  }
}
