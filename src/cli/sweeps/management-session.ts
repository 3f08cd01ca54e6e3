// The Temporal connection the sweep-management commands (list, status, result, resume, schedule)
// share: same address resolution as `spica sweep` (--address, TEMPORAL_ADDRESS, temporal.toml
// profile), but with no address configured they talk to the embedded server `spica server` keeps
// running (temporal-dev.yaml) instead of starting one: there is nothing to manage on a fresh server.
import { Client, ServiceError, WorkflowNotFoundError, type Connection } from '@temporalio/client';
import { InputError, SpicaError, TemporalUnavailable } from '../../errors.js';
import { connectClient, START_SERVER_HINT } from '../temporal/client-connection.js';
import { resolveTemporalTarget } from '../temporal/connection-target.js';
import { devServerAddress, loadDevServerConfig } from '../temporal/dev-config.js';

export interface ConnectionFlags {
  address?: string;
  namespace?: string;
}

export interface ManagementSession {
  client: Client;
  connection: Connection;
  address: string;
  namespace: string;
  close(): Promise<void>;
}

/** Where the management commands connect: the configured target, else the embedded server's address. */
export function managementTarget(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env): { address: string; namespace: string } {
  const target = resolveTemporalTarget({ address: flags.address, namespace: flags.namespace, env });
  return { address: target.address ?? devServerAddress(loadDevServerConfig()), namespace: target.namespace };
}

export async function openManagementSession(flags: ConnectionFlags): Promise<ManagementSession> {
  const { address, namespace } = managementTarget(flags);
  const connection = await connectClient(address);
  return {
    client: new Client({ connection, namespace }),
    connection,
    address,
    namespace,
    close: () => connection.close(),
  };
}

/**
 * Maps what a Temporal call can throw to the CLI's exit codes: an unknown workflow id is bad input
 * (2), any other gRPC failure is a Temporal failure (3). SpicaErrors pass through.
 */
export function asCliError(err: unknown, address: string, what: string): unknown {
  if (err instanceof SpicaError) return err;
  if (err instanceof WorkflowNotFoundError) return new InputError(`${what}: no such workflow on ${address} (${err.message}); \`spica list\` shows the sweeps there`);
  if (err instanceof ServiceError) {
    const code = (err.cause as { code?: number } | undefined)?.code;
    // gRPC 14 UNAVAILABLE / 4 DEADLINE_EXCEEDED: the server went away mid-command.
    const hint = code === 14 || code === 4 ? `; ${START_SERVER_HINT}` : '';
    return new TemporalUnavailable(`${what}: Temporal call failed at ${address}: ${err.message}${hint}`);
  }
  return err;
}

/** Runs `fn` with a session and closes it; errors are mapped by `asCliError`. */
export async function withManagementSession<T>(flags: ConnectionFlags, what: string, fn: (s: ManagementSession) => Promise<T>): Promise<T> {
  const session = await openManagementSession(flags);
  try {
    return await fn(session);
  } catch (err) {
    throw asCliError(err, session.address, what);
  } finally {
    await session.close().catch(() => undefined);
  }
}
