// Persistent replay-result cache: one entry per (simulator version + perf-data fingerprint, canonical
// ReplaySpec hash), kept in this process's store (src/store: the local directory by default, or the
// shared PostgreSQL store). Shared by resumed runs, re-sweeps and every worker that reaches the same
// store; `runtime_timeout` and `replay_runtime` outcomes are never stored (a slower or luckier
// machine may finish them).
import { perfDataFingerprint } from '../src/hardware/perf-data-fingerprint.js';
import { SIMULATOR_VERSION } from '../src/replay/report.js';
import { DirectoryStore } from '../src/store/directory-store.js';
import { spicaStore, resultStoreDir } from '../src/store/select.js';
import type { SpicaStore } from '../src/store/store.js';
import type { EvalOutcome } from '../src/search/trial.js';

export { isCacheable } from '../src/store/store.js';
export { CACHE_DIR_ENV, resultCacheDir } from '../src/store/select.js';

export class ReplayResultCache {
  constructor(
    readonly store: SpicaStore,
    /** Simulator version + perf-data fingerprint: part of every key. */
    readonly version: string,
  ) {}

  /** A local-directory cache (tests, tools). */
  static inDirectory(dir: string, version: string): ReplayResultCache {
    return new ReplayResultCache(new DirectoryStore(dir, resultStoreDir()), version);
  }

  get(specHash: string): Promise<EvalOutcome | null> {
    return this.store.getReplay(this.version, specHash);
  }

  getMany(specHashes: readonly string[]): Promise<Map<string, EvalOutcome>> {
    return this.store.getReplays(this.version, specHashes);
  }

  /** Stores a cacheable outcome; returns whether the key now holds it. */
  put(specHash: string, outcome: EvalOutcome): Promise<boolean> {
    return this.store.putReplay(this.version, specHash, outcome);
  }
}

let dataVersion: string | null = null;

/** The cache key's version part: simulator version + perf-data fingerprint (read once per process). */
export function cacheVersion(): string {
  dataVersion ??= `${SIMULATOR_VERSION}+data.${perfDataFingerprint().slice(0, 16)}`;
  return dataVersion;
}

/**
 * The persistent cache of this worker, in this process's store: keyed by the simulator version and the
 * fingerprint of the perf data (system files, fitted coefficients), so a recalibration starts a new
 * cache instead of serving results computed with the old coefficients.
 */
export function resultCache(): ReplayResultCache {
  return new ReplayResultCache(spicaStore(), cacheVersion());
}
