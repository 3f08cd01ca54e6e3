// Default sweep workflow ids: `spica-<first 12 hex of sha256(canonical config JSON)>-<seed>`, so
// the same config and seed map to the same name. A rerun of an id that already exists gets the
// first free `-2`, `-3`, … suffix (ids stay readable and ordered; the earlier runs stay listable).
import { canonicalJson } from '../../config/canonical-json.js';
import { configHash } from '../../config/config-hash.js';

export { canonicalJson };

export function configHash12(config: unknown): string {
  return configHash(config).slice(0, 12);
}

export function defaultSweepWorkflowId(config: unknown, seed: number): string {
  return `spica-${configHash12(config)}-${seed}`;
}

/** The id to use for attempt `n` (1 = the base id itself). */
export function withRunSuffix(baseId: string, n: number): string {
  return n <= 1 ? baseId : `${baseId}-${n}`;
}
