// Which PostgreSQL errors mean "the server is not reachable right now" (restarting, failing over, the
// network gone) rather than a fault of the statement: the store waits those out (postgres-store.ts).

/** Socket-level error codes of node and `pg` when the server cannot be reached or dropped us. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN']);

/**
 * SQLSTATEs of a server going away or not taking connections yet: class 08 (connection exception),
 * 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, recovering),
 * 53300 too_many_connections.
 */
const TRANSIENT_SQLSTATES = /^(08...|57P0[123]|53300)$/;

/** Messages `pg` gives a connection that broke or timed out, without a code. */
const BROKEN_CONNECTION = /^(Connection terminated|Client has encountered a connection error|timeout expired|Connection terminated due to connection timeout)/;

export function isConnectionFailure(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || TRANSIENT_SQLSTATES.test(code))) return true;
  if (typeof message === 'string' && BROKEN_CONNECTION.test(message)) return true;
  // An AggregateError (a host name resolving to several addresses, all refused) carries the codes inside.
  const errors = (err as { errors?: unknown }).errors;
  return Array.isArray(errors) && errors.length > 0 && errors.every(isConnectionFailure);
}
