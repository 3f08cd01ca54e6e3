// The embedded default store: plain files under the project's `.spica/` (or the directories the
// environment names). Replay outcomes: `<cacheDir>/<version>/<aa>/<specHash>.json`; blobs:
// `<resultsDir>/<name>.json` (results) and `<resultsDir>/trials/<name>.json` (trial chunks). Writes are
// tmp file + rename, so a crashed writer never leaves a torn entry and concurrent writers of one
// key leave one whole file.
import { createHash, randomUUID } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { StoreUnavailable } from '../errors.js';
import type { EvalOutcome } from '../search/trial.js';
import {
  checkSpecHash,
  isCacheable,
  parseReplayEntry,
  replayEntryText,
  safeBlobName,
  type BlobKind,
  type BlobRef,
  type SpicaStore,
} from './store.js';

export function writeAtomic(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

export class DirectoryStore implements SpicaStore {
  readonly kind = 'directory' as const;
  constructor(
    readonly cacheDir: string,
    readonly resultsDir: string,
  ) {}

  describe(): string {
    return `directory (replay cache ${this.cacheDir}, results ${this.resultsDir})`;
  }

  /** `<resultsDir>/store-id`, created by the first caller: written aside, then linked (fails if another was first). */
  async id(): Promise<string> {
    const file = path.join(this.resultsDir, 'store-id');
    const existing = readOrNull(file)?.trim();
    if (existing) return existing;
    try {
      mkdirSync(this.resultsDir, { recursive: true });
      const tmp = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
      writeFileSync(tmp, `${randomUUID()}\n`);
      try {
        linkSync(tmp, file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      } finally {
        unlinkSync(tmp);
      }
      return readFileSync(file, 'utf8').trim();
    } catch (err) {
      // A results directory this process cannot write (or read) is not a store it can use: exit 3, said plainly.
      throw new StoreUnavailable(`cannot create the store id ${file}: ${(err as Error).message} (check SPICA_RESULT_STORE, or use --store)`);
    }
  }

  replayFile(version: string, specHash: string): string {
    checkSpecHash(specHash);
    return path.join(this.cacheDir, version.replace(/[^A-Za-z0-9._-]/g, '_'), specHash.slice(0, 2), `${specHash}.json`);
  }

  blobFile(kind: BlobKind, name: string): string {
    const rel = `${safeBlobName(name)}.json`;
    if (kind === 'result') return path.resolve(path.join(this.resultsDir, rel));
    return path.resolve(path.join(this.resultsDir, kind === 'config' ? 'configs' : 'trials', rel));
  }

  async getReplay(version: string, specHash: string): Promise<EvalOutcome | null> {
    const text = readOrNull(this.replayFile(version, specHash));
    return text === null ? null : parseReplayEntry(text, specHash);
  }

  async getReplays(version: string, specHashes: readonly string[]): Promise<Map<string, EvalOutcome>> {
    const out = new Map<string, EvalOutcome>();
    for (const h of specHashes) {
      const o = await this.getReplay(version, h);
      if (o) out.set(h, o);
    }
    return out;
  }

  async putReplay(version: string, specHash: string, outcome: EvalOutcome): Promise<boolean> {
    if (!isCacheable(outcome)) return false;
    writeAtomic(this.replayFile(version, specHash), replayEntryText(version, specHash, outcome));
    return true;
  }

  async putBlob(kind: BlobKind, name: string, text: string): Promise<BlobRef> {
    const file = this.blobFile(kind, name);
    writeAtomic(file, text);
    return {
      store: 'directory',
      kind,
      name: safeBlobName(name),
      location: file,
      sha256: createHash('sha256').update(text).digest('hex'),
      bytes: Buffer.byteLength(text),
    };
  }

  async getBlob(kind: BlobKind, name: string): Promise<string | null> {
    return readOrNull(this.blobFile(kind, name));
  }

  async close(): Promise<void> {}
}
