// Persistent replay-result cache: one JSON file per (simulator version, canonical ReplaySpec hash).
// Shared by resumed runs, re-sweeps and every worker that sees the same directory. Writes are
// atomic (tmp file + rename) so a crashed worker never leaves a torn entry; `runtime_timeout` and
// `replay_runtime` outcomes are never stored (a slower or luckier machine may finish them).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { spicaStateDir } from '../src/cli/temporal/project-paths.js';
import type { EvalOutcome } from '../src/search/trial.js';

export const CACHE_DIR_ENV = 'SPICA_CACHE_DIR';

/** `SPICA_CACHE_DIR`, else `.spica/cache/` in the project. Read per call so a worker flag or test can set it. */
export function resultCacheDir(): string {
  return process.env[CACHE_DIR_ENV] || path.join(spicaStateDir(), 'cache');
}

/** Outcomes a rerun cannot change: successes and deterministic infeasibility/build errors. */
export function isCacheable(o: EvalOutcome): boolean {
  return o.ok || (o.reason_category !== 'runtime_timeout' && o.reason_category !== 'replay_runtime');
}

export class ReplayResultCache {
  constructor(
    readonly dir: string,
    readonly simulatorVersion: string,
  ) {}

  private file(specHash: string): string {
    if (!/^[0-9a-f]{64}$/.test(specHash)) throw new Error(`not a spec hash: '${specHash}'`);
    const version = this.simulatorVersion.replace(/[^A-Za-z0-9._-]/g, '_');
    return path.join(this.dir, version, specHash.slice(0, 2), `${specHash}.json`);
  }

  get(specHash: string): EvalOutcome | null {
    const file = this.file(specHash);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return null;
    }
    try {
      const entry = JSON.parse(text) as { spec_hash?: string; outcome?: EvalOutcome };
      // A foreign or corrupt file is a miss, never a wrong answer.
      if (entry.spec_hash !== specHash || !entry.outcome || typeof entry.outcome.ok !== 'boolean') return null;
      return entry.outcome;
    } catch {
      return null;
    }
  }

  /** Stores a cacheable outcome; returns whether it was stored. */
  put(specHash: string, outcome: EvalOutcome): boolean {
    if (!isCacheable(outcome)) return false;
    const file = this.file(specHash);
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
    writeFileSync(tmp, JSON.stringify({ spec_hash: specHash, simulator_version: this.simulatorVersion, outcome }));
    renameSync(tmp, file);
    return true;
  }
}
