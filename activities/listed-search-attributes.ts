// The custom search attributes a namespace has, as a listing on one connection of this process found
// them: `spica sweep` lists (and if needed registers) them before the start, on the connection its
// in-process worker shares, and the `plan` activity of that worker reads the answer here instead of
// listing them again over gRPC. Other workers (another connection, another process) list them.
const listed = new WeakMap<object, Map<string, readonly string[]>>();

export function rememberListedSearchAttributes(connection: object, namespace: string, custom: readonly string[]): void {
  let byNamespace = listed.get(connection);
  if (!byNamespace) listed.set(connection, (byNamespace = new Map()));
  byNamespace.set(namespace, [...custom]);
}

/** The custom attribute names listed on `connection` for `namespace`, or undefined when never listed. */
export function listedSearchAttributes(connection: object, namespace: string): readonly string[] | undefined {
  return listed.get(connection)?.get(namespace);
}
