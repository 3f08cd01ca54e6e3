// A --namespace (or TEMPORAL_NAMESPACE, or profile) naming a namespace the server does not have: the
// SDK says so in three shapes depending on the call — the client's NamespaceNotFoundError, a raw
// gRPC NOT_FOUND ("Namespace x is not found."), the worker's TransportError ("Namespace x was not
// found or otherwise could not be described") — which the CLI printed as an internal error with a
// stack trace (and `spica worker` then hung). Read by shape: the CLI's entry must not load the SDK.
import { causeChain } from '../../errors.js';

/** The namespace an error (or one of its causes) says does not exist, else null. */
export function missingNamespace(err: unknown): string | null {
  for (const e of causeChain(err)) {
    const { name, namespace, message } = e as { name?: unknown; namespace?: unknown; message?: unknown };
    if (name === 'NamespaceNotFoundError' && typeof namespace === 'string') return namespace;
    const said = typeof message === 'string' ? /\bNamespace (\S+?) (?:is not found|was not found)/.exec(message) : null;
    if (said) return said[1];
  }
  return null;
}

/** What to do about it. */
export function missingNamespaceMessage(namespace: string): string {
  return `namespace '${namespace}' does not exist on the Temporal server: register it (\`temporal operator namespace create --namespace ${namespace}\`) or pass another --namespace`;
}
