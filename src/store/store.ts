// The one interface behind which Spica keeps state that outlives a worker: the replay-result cache,
// stored sweep results and the trial chunks of running branches. Two implementations: a local
// directory (embedded default, zero set-up, shared only by processes that see the same disk) and
// PostgreSQL (selected by a connection string, shared by every machine that reaches the database).
// Reached only from activities and the CLI: workflow code never does I/O.
import type { EvalOutcome } from '../search/trial.js';

/** What a blob holds: a SweepResult too big for a workflow payload, or one chunk of a branch's trials. */
export type BlobKind = 'result' | 'trials' | 'config';

/** Where a blob lives, as a reference small enough for any payload. */
export interface BlobRef {
  /** 'directory' | 'postgresql' */
  store: StoreKind;
  kind: BlobKind;
  name: string;
  /** Human-readable location: the absolute file path, or `postgresql://host:port/db#kind/name` (no password). */
  location: string;
  sha256: string;
  bytes: number;
}

export type StoreKind = 'directory' | 'postgresql';

export interface SpicaStore {
  readonly kind: StoreKind;
  /** For logs: the directories, or the server and database (never a password). */
  describe(): string;

  /**
   * Cached outcome of the replay `specHash` under `version` (simulator version + perf-data
   * fingerprint), or null. A corrupt or foreign entry is a miss, never a wrong answer.
   */
  getReplay(version: string, specHash: string): Promise<EvalOutcome | null>;
  /** Several at once (hydrating a report); absent keys are absent from the map. */
  getReplays(version: string, specHashes: readonly string[]): Promise<Map<string, EvalOutcome>>;
  /**
   * Stores a cacheable outcome (never a timeout: see isCacheable) and returns whether the key now
   * holds it. Concurrent writers of one key are safe: replays are deterministic, so every writer
   * brings the same value and the first one stays (identical-value semantics).
   */
  putReplay(version: string, specHash: string, outcome: EvalOutcome): Promise<boolean>;

  /** Writes (or rewrites with the same name) a blob; atomic: a reader sees the old or the new text whole. */
  putBlob(kind: BlobKind, name: string, text: string): Promise<BlobRef>;
  /** The blob's text, or null when it is not in this store. */
  getBlob(kind: BlobKind, name: string): Promise<string | null>;

  /**
   * This store's own id: random, written into the store by its first user and read back by every other
   * one, whatever path or URL it names the store by; two stores never share it. Workers carry it in
   * their Temporal identity (task-queue.ts), so a sweep is never handed to a worker of another store.
   */
  id(): Promise<string>;

  /** Releases connections (a no-op for the directory). */
  close(): Promise<void>;
}

/** Outcomes a rerun cannot change: successes and deterministic infeasibility/build errors. */
export function isCacheable(o: EvalOutcome): boolean {
  return o.ok || (o.reason_category !== 'runtime_timeout' && o.reason_category !== 'replay_runtime');
}

/** A stored entry is trusted only when it is the outcome of the key asked for. */
export function parseReplayEntry(text: string, specHash: string): EvalOutcome | null {
  try {
    const entry = JSON.parse(text) as { spec_hash?: string; outcome?: EvalOutcome };
    if (entry.spec_hash !== specHash || !entry.outcome || typeof entry.outcome.ok !== 'boolean') return null;
    return entry.outcome;
  } catch {
    return null;
  }
}

export function replayEntryText(version: string, specHash: string, outcome: EvalOutcome): string {
  return JSON.stringify({ spec_hash: specHash, simulator_version: version, outcome });
}

export function checkSpecHash(specHash: string): void {
  if (!/^[0-9a-f]{64}$/.test(specHash)) throw new Error(`not a spec hash: '${specHash}'`);
}

/** Blob names are paths of safe segments (`sweep-id/branch-agg/00012`): no traversal, no odd characters. */
export function safeBlobName(name: string): string {
  const segments = name.split('/').map((s) => s.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_'));
  if (segments.some((s) => s === '')) throw new Error(`not a blob name: '${name}'`);
  return segments.join('/');
}
