// Deterministic row selections: the CI subset and the 2-fold split used to hold rows out of a fit.
// Both depend only on row ids (FNV-1a), so adding rows to the CSV does not reshuffle the others.
import { ROW_REQUEST_RATIO } from './rowConfig.js';
import type { E2eRow } from './rows.js';

export function idHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Fold (0 … folds−1) of a row id. */
export function foldOf(id: string, folds = 2): number {
  return idHash(id) % folds;
}

/** Output tokens one replay of the row emits (its cost). */
export function replayWork(r: E2eRow): number {
  return ROW_REQUEST_RATIO * r.concurrency * r.osl;
}

/**
 * A fixed subset for CI: per (sku, backend, mode) the `perGroup` rows with the smallest id hash whose
 * replay stays cheap (≤ `maxWork` emitted tokens; one bound, or one per mode), so every group is covered.
 */
export function ciSubset(rows: readonly E2eRow[], perGroup: number, maxWork: number | Record<E2eRow['mode'], number> = 200_000): E2eRow[] {
  const by = new Map<string, E2eRow[]>();
  for (const r of rows) {
    if (replayWork(r) > (typeof maxWork === 'number' ? maxWork : maxWork[r.mode])) continue;
    const k = `${r.sku}/${r.backend}/${r.mode}`;
    by.set(k, [...(by.get(k) ?? []), r]);
  }
  const out: E2eRow[] = [];
  for (const k of [...by.keys()].sort()) out.push(...by.get(k)!.sort((a, b) => idHash(a.id) - idHash(b.id)).slice(0, perGroup));
  return out;
}
