// The identity of a validated config: sha256 of its canonical JSON. Sweep ids, schedule ids and the
// per-process plan cache all key on it.
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

export function configHash(config: unknown): string {
  return createHash('sha256').update(canonicalJson(config)).digest('hex');
}
