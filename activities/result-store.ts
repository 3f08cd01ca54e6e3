// The result store: SweepResults too big for a workflow payload (~1.5 MB, under the 2 MB limit) are
// written here and the workflow returns a reference (path + sha256). Atomic writes.
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spicaStateDir } from '../src/cli/temporal/project-paths.js';
import type { SweepResult } from '../src/search/sweepResult.js';
import type { StoredSweepResult, SweepOutcome } from '../workflows/sweep-types.js';

export const RESULT_STORE_ENV = 'SPICA_RESULT_STORE';
/** Test/ops override of the inline limit in bytes. */
export const INLINE_LIMIT_ENV = 'SPICA_RESULT_INLINE_LIMIT_BYTES';
export const DEFAULT_INLINE_LIMIT_BYTES = 1_500_000;

export function resultStoreDir(): string {
  return process.env[RESULT_STORE_ENV] || path.join(spicaStateDir(), 'results');
}

function inlineLimit(): number {
  const v = Number(process.env[INLINE_LIMIT_ENV]);
  return Number.isFinite(v) && v > 0 ? v : DEFAULT_INLINE_LIMIT_BYTES;
}

/** Returns the result itself when small enough, else stores it and returns the reference. */
export function inlineOrStore(result: SweepResult): SweepOutcome {
  const text = JSON.stringify(result);
  const bytes = Buffer.byteLength(text);
  if (bytes <= inlineLimit()) return result;
  const dir = resultStoreDir();
  mkdirSync(dir, { recursive: true });
  const name = `${(result.sweep_id ?? result.config_hash).replace(/[^A-Za-z0-9._-]/g, '_')}.json`;
  const file = path.join(dir, name);
  const tmp = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
  const stored: StoredSweepResult = {
    stored: true,
    path: path.resolve(file),
    sha256: createHash('sha256').update(text).digest('hex'),
    bytes,
    sweep_id: result.sweep_id,
    counts: result.counts,
  };
  return stored;
}

/** Reads a stored result back, checking it is the one the workflow wrote. */
export function readStoredResult(ref: StoredSweepResult): SweepResult {
  let text: string;
  try {
    text = readFileSync(ref.path, 'utf8');
  } catch (e) {
    throw new Error(`stored sweep result ${ref.path} is not readable here (${(e as Error).message}); it lives on the worker that reported the sweep`);
  }
  const sha = createHash('sha256').update(text).digest('hex');
  if (sha !== ref.sha256) throw new Error(`stored sweep result ${ref.path} changed since the sweep wrote it (sha256 ${sha.slice(0, 12)}… ≠ ${ref.sha256.slice(0, 12)}…)`);
  return JSON.parse(text) as SweepResult;
}
