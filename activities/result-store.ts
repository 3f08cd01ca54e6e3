// Stored sweep results: a SweepResult bigger than the inline limit (256 KB, Temporal's payload
// warning size) is written to this process's store and the workflow returns a reference (store,
// name, sha256); `spica result` reads it back from the same store — on any machine when the store
// is PostgreSQL.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { spicaStore, STORE_URL_ENV } from '../src/store/select.js';
import type { SweepResult } from '../src/search/sweepResult.js';
import type { StoredSweepResult, SweepOutcome } from '../workflows/sweep-types.js';

export { RESULT_STORE_ENV, resultStoreDir } from '../src/store/select.js';
/** Test/ops override of the inline limit in bytes. */
export const INLINE_LIMIT_ENV = 'SPICA_RESULT_INLINE_LIMIT_BYTES';
export const DEFAULT_INLINE_LIMIT_BYTES = 256_000;

function inlineLimit(): number {
  const v = Number(process.env[INLINE_LIMIT_ENV]);
  return Number.isFinite(v) && v > 0 ? v : DEFAULT_INLINE_LIMIT_BYTES;
}

export function resultBlobName(result: SweepResult): string {
  return result.sweep_id ?? result.config_hash;
}

/** Returns the result itself when small enough, else stores it and returns the reference. */
export async function inlineOrStore(result: SweepResult): Promise<SweepOutcome> {
  const text = JSON.stringify(result);
  if (Buffer.byteLength(text) <= inlineLimit()) return result;
  const ref = await spicaStore().putBlob('result', resultBlobName(result), text);
  const stored: StoredSweepResult = {
    stored: true,
    store: ref.store,
    name: ref.name,
    path: ref.location,
    sha256: ref.sha256,
    bytes: ref.bytes,
    sweep_id: result.sweep_id,
    counts: result.counts,
  };
  return stored;
}

async function storedText(ref: StoredSweepResult): Promise<string> {
  if (ref.store === 'postgresql') {
    const store = spicaStore();
    if (store.kind !== 'postgresql') {
      throw new Error(`stored sweep result ${ref.path} lives in a PostgreSQL store; set ${STORE_URL_ENV} (or --store) to its connection string`);
    }
    const text = await store.getBlob('result', ref.name ?? '');
    if (text === null) throw new Error(`stored sweep result ${ref.path} is not in ${store.describe()}`);
    return text;
  }
  try {
    return readFileSync(ref.path, 'utf8'); // directory store: the absolute path the worker wrote
  } catch (e) {
    throw new Error(
      `stored sweep result ${ref.path} is not readable here (${(e as Error).message}); it lives on the worker that reported the sweep (a shared ${STORE_URL_ENV} store makes it readable everywhere)`,
    );
  }
}

/** Reads a stored result back, checking it is the one the workflow wrote. */
export async function readStoredResult(ref: StoredSweepResult): Promise<SweepResult> {
  const text = await storedText(ref);
  const sha = createHash('sha256').update(text).digest('hex');
  if (sha !== ref.sha256) throw new Error(`stored sweep result ${ref.path} changed since the sweep wrote it (sha256 ${sha.slice(0, 12)}… ≠ ${ref.sha256.slice(0, 12)}…)`);
  return JSON.parse(text) as SweepResult;
}
