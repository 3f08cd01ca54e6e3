// Default sweep workflow ids: `spica-<first 12 hex of sha256(canonical config JSON)>-<seed>`, so
// the same config and seed map to the same name. A rerun of an id that already exists gets the
// first free `-2`, `-3`, … suffix (ids stay readable and ordered; the earlier runs stay listable).
import { createHash } from 'node:crypto';

/** JSON with object keys sorted recursively; undefined members dropped as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortKeys(v)));
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(obj)
        .sort()
        .filter((k) => obj[k] !== undefined)
        .map((k) => [k, sortKeys(obj[k])]),
    );
  }
  return value;
}

export function configHash12(config: unknown): string {
  return createHash('sha256').update(canonicalJson(config)).digest('hex').slice(0, 12);
}

export function defaultSweepWorkflowId(config: unknown, seed: number): string {
  return `spica-${configHash12(config)}-${seed}`;
}

/** The id to use for attempt `n` (1 = the base id itself). */
export function withRunSuffix(baseId: string, n: number): string {
  return n <= 1 ? baseId : `${baseId}-${n}`;
}
