// A branch's trials leave the workflow in chunks, one per finished round (compact, a few hundred
// bytes each), written to the store by `storeTrialChunk`. The workflow then carries only counters;
// `recallTrials` answers the round loop's "was this candidate tried before?" from the stored chunks,
// and the report reads them all back. Chunk names are deterministic (`<branch workflow id>/<index>`),
// so a retried or replayed write rewrites the same text.
import type { TrialRecord } from '../src/search/study/trialRecord.js';
import { spicaStore } from '../src/store/select.js';

/** Where a branch's chunks live: `prefix/00000` … `prefix/<chunks-1>`. */
export interface TrialChunks {
  prefix: string;
  chunks: number;
}

export function chunkName(prefix: string, index: number): string {
  return `${prefix}/${String(index).padStart(5, '0')}`;
}

/** One chunk to write: the trials of `prefix/<index>`. */
export interface TrialChunk {
  prefix: string;
  index: number;
  trials: TrialRecord[];
}

export async function storeTrialChunk(input: TrialChunk): Promise<{ bytes: number }> {
  const ref = await spicaStore().putBlob('trials', chunkName(input.prefix, input.index), JSON.stringify(input.trials));
  return { bytes: ref.bytes };
}

// Parsed chunks of recently used branches: chunks never change once written, so a long branch
// reads each one once per worker process however many rounds recall from it.
const CACHED_PREFIXES = 8;
const parsed = new Map<string, TrialRecord[][]>();

/** Every stored trial of a branch, in trial order. */
export async function readTrialChunks(ref: TrialChunks): Promise<TrialRecord[][]> {
  const known = parsed.get(ref.prefix) ?? [];
  parsed.delete(ref.prefix);
  const store = spicaStore();
  for (let i = known.length; i < ref.chunks; i++) {
    const text = await store.getBlob('trials', chunkName(ref.prefix, i));
    if (text === null) throw new Error(`trial chunk ${chunkName(ref.prefix, i)} is not in ${store.describe()} (a branch resumed on a machine that cannot reach the store that wrote it needs a shared store)`);
    known.push(JSON.parse(text) as TrialRecord[]);
  }
  parsed.set(ref.prefix, known);
  while (parsed.size > CACHED_PREFIXES) parsed.delete(parsed.keys().next().value!);
  return known.slice(0, ref.chunks);
}

/** The first replayed (not cache-hit, not timed-out: the memo never answers from a timeout) stored trial of each key, in key order of first occurrence. */
export async function recallTrials(input: TrialChunks & { keys: string[] }): Promise<TrialRecord[]> {
  const wanted = new Set(input.keys);
  const found = new Map<string, TrialRecord>();
  for (const chunk of await readTrialChunks(input)) {
    for (const t of chunk) if (wanted.has(t.key) && !t.cache_hit && t.status !== 'timed_out' && !found.has(t.key)) found.set(t.key, t);
    if (found.size === wanted.size) break;
  }
  return [...found.values()];
}
