// sha256 of a ReplaySpec's canonical JSON: the result-cache key and the report's spec_hash.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../config/canonical-json.js';
import type { ReplaySpec } from './spec.js';

export function specHash(spec: ReplaySpec): string {
  return createHash('sha256').update(canonicalJson(spec)).digest('hex');
}
