// Registers the custom search attributes sweeps upsert, when the server lacks them
// (CLARIFICATIONS §E: register if missing; warn, don't fail, if not permitted).
import type { Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { rememberListedSearchAttributes } from '../../../activities/listed-search-attributes.js';
import type { SearchAttributeKind } from './dev-config.js';

// temporal.api.enums.v1.IndexedValueType numbers (the proto package is CommonJS and only a
// transitive dependency, so only its types are imported).
const KIND_TO_INDEXED: Record<SearchAttributeKind, temporal.api.enums.v1.IndexedValueType> = {
  Text: 1,
  Keyword: 2,
  Int: 3,
  Double: 4,
  Bool: 5,
  Datetime: 6,
  KeywordList: 7,
};

export interface RegistrationOutcome {
  /** Attributes present after the call (already there or newly added). */
  available: string[];
  added: string[];
  /** Human-readable warnings; empty when everything is registered. */
  warnings: string[];
}

export async function ensureSearchAttributes(
  connection: Pick<Connection | NativeConnection, 'operatorService'>,
  namespace: string,
  wanted: Record<string, SearchAttributeKind>,
): Promise<RegistrationOutcome> {
  const names = Object.keys(wanted);
  let existing: Record<string, unknown>;
  let listed: Awaited<ReturnType<typeof connection.operatorService.listSearchAttributes>>;
  try {
    listed = await connection.operatorService.listSearchAttributes({ namespace });
    existing = { ...(listed.customAttributes ?? {}), ...(listed.systemAttributes ?? {}) };
  } catch (err) {
    return { available: [], added: [], warnings: [`cannot list search attributes in '${namespace}': ${(err as Error).message}`] };
  }
  const missing = names.filter((n) => !(n in existing));
  const present = names.filter((n) => n in existing);
  if (missing.length === 0) {
    // Nothing to add: what the plan activity of a worker on this connection would list (reused there).
    rememberListedSearchAttributes(connection, namespace, Object.keys(listed.customAttributes ?? {}));
    return { available: present, added: [], warnings: [] };
  }
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((n) => [n, KIND_TO_INDEXED[wanted[n]]])),
    });
    return { available: names, added: missing, warnings: [] };
  } catch (err) {
    return {
      available: present,
      added: [],
      warnings: [
        `could not register search attributes ${missing.join(', ')} in '${namespace}' (${(err as Error).message}); ` +
          'sweeps run without them (register with `temporal operator search-attribute create`)',
      ],
    };
  }
}
