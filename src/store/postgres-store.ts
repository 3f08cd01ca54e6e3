// The shared store for several machines: PostgreSQL, selected by a connection string
// (`SPICA_STORE_URL` / `--store postgresql://user@host:5432/db`). Two tables, created on first use:
// replay outcomes keyed by (version, spec_hash), written with INSERT … ON CONFLICT DO NOTHING (the
// first writer of a key wins; replays are deterministic so later writers bring the same value), and
// blobs keyed by (kind, name), upserted whole in one statement (readers see old or new, never half).
// A server this process has reached before is waited for through an outage (restart, failover): each
// call retries for up to STORE_OUTAGE_WAIT_MS, so a store that comes back within it costs a sweep
// nothing; after it the call fails (StoreUnavailable) and the activity's own retries wait some more. A
// store never reached fails at once: a wrong URL is not an outage.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { StoreUnavailable } from '../errors.js';
import type { EvalOutcome } from '../search/trial.js';
import { isConnectionFailure } from './connection-failure.js';
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

const SCHEMA = `
CREATE TABLE IF NOT EXISTS spica_replay_cache (
  version    text NOT NULL,
  spec_hash  text NOT NULL,
  entry      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (version, spec_hash)
);
CREATE TABLE IF NOT EXISTS spica_blobs (
  kind       text NOT NULL,
  name       text NOT NULL,
  body       text NOT NULL,
  sha256     text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, name)
);
CREATE TABLE IF NOT EXISTS spica_store (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  id        text NOT NULL
);
INSERT INTO spica_store (id) VALUES (md5(random()::text || clock_timestamp()::text)) ON CONFLICT DO NOTHING;`;

/** Advisory-lock id serialising schema creation (CREATE TABLE IF NOT EXISTS races between sessions). */
const SCHEMA_LOCK = 0x5e1ca;

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** The connection string without its password, for logs and references. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgresql://(unparsable connection string)';
  }
}

/**
 * How long one store call waits for a server it reached before. Well under the 30-s start-to-close
 * timeout of the short (local) activities that read and write the store, which make up to three calls
 * one after another (workflows/branch-study.ts): a wait ends as a failed attempt the activity retries
 * (workflows/activity-retry.ts), never as an attempt timed out mid-wait while
 * its call goes on (25 s did that: "Tried to complete untracked local activity", then "Activity timed out").
 */
export const STORE_OUTAGE_WAIT_MS = 10_000;

export interface PostgresStoreOptions {
  /** How long one call waits out an outage (default STORE_OUTAGE_WAIT_MS). */
  outageWaitMs?: number;
  /** Where the line at the start and at the end of an outage goes (default stderr). */
  notice?: (line: string) => void;
}

export class PostgresStore implements SpicaStore {
  readonly kind = 'postgresql' as const;
  private poolPromise: Promise<pg.Pool> | null = null;
  private ready: Promise<void> | null = null;
  private storeId: Promise<string> | null = null;
  private readonly shownUrl: string;
  private readonly outageWaitMs: number;
  private readonly notice: (line: string) => void;
  /** A query has succeeded: from now on a connection failure is an outage to wait out. */
  private reached = false;
  /** When the current outage was first seen (null: none). */
  private outageSince: number | null = null;

  constructor(
    readonly url: string,
    opts: PostgresStoreOptions = {},
  ) {
    this.shownUrl = redactUrl(url);
    this.outageWaitMs = opts.outageWaitMs ?? STORE_OUTAGE_WAIT_MS;
    this.notice = opts.notice ?? ((line) => process.stderr.write(line));
  }

  /** The client is loaded on first use: a process on the directory store never loads `pg`. */
  private pool(): Promise<pg.Pool> {
    this.poolPromise ??= import('pg').then(({ default: pgModule }) => {
      // Idle clients close quickly and never keep a CLI process alive.
      const pool = new pgModule.Pool({ connectionString: this.url, max: 4, idleTimeoutMillis: 2_000, allowExitOnIdle: true });
      pool.on('error', () => undefined); // an idle client's broken socket is replaced on next use
      return pool;
    });
    return this.poolPromise;
  }

  describe(): string {
    return `postgresql ${this.shownUrl}`;
  }

  private schema(): Promise<void> {
    this.ready ??= (async () => {
      const client = await (await this.pool()).connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
        await client.query(SCHEMA);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    })().catch((err: unknown) => {
      this.ready = null; // a later call retries (the server may come up meanwhile)
      throw new Error(`PostgreSQL store ${this.shownUrl} is not usable: ${(err as Error).message}`, { cause: err });
    });
    return this.ready;
  }

  private async query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    const started = Date.now();
    for (let delayMs = 250; ; delayMs = Math.min(delayMs * 2, 4_000)) {
      try {
        await this.schema();
        const result = await (await this.pool()).query<R>(text, values);
        this.reached = true;
        if (this.outageSince !== null) {
          this.notice(`${new Date().toISOString()} [INFO] PostgreSQL store ${this.shownUrl} reachable again after ${((Date.now() - this.outageSince) / 1000).toFixed(0)} s\n`);
          this.outageSince = null;
        }
        return result;
      } catch (err) {
        const cause = (err as { cause?: unknown }).cause ?? err;
        if (!this.reached || !isConnectionFailure(cause)) throw err;
        const now = Date.now();
        const why = (cause as Error).message || String((cause as { code?: unknown }).code);
        if (this.outageSince === null) {
          this.outageSince = now;
          this.notice(`${new Date(now).toISOString()} [WARN] PostgreSQL store ${this.shownUrl} unreachable (${why}); each call waits up to ${this.outageWaitMs / 1000} s for it\n`);
        }
        if (now - started + delayMs > this.outageWaitMs) {
          throw new StoreUnavailable(`PostgreSQL store ${this.shownUrl} unreachable for ${((now - started) / 1000).toFixed(0)} s (${why})`);
        }
        await sleep(delayMs);
      }
    }
  }

  /**
   * Fails (StoreUnavailable, exit 3) unless the store can be used now: what a command checks before it
   * starts anything, so a wrong URL, or a server down from the start, is said at once instead of
   * through an activity's retries.
   */
  async check(): Promise<void> {
    try {
      await this.query('SELECT 1', []);
    } catch (err) {
      if (err instanceof StoreUnavailable) throw err;
      throw new StoreUnavailable(`${(err as Error).message} (check --store / SPICA_STORE_URL)`);
    }
  }

  /** The one row of `spica_store`, inserted with the schema by the first process that used the database; read once. */
  async id(): Promise<string> {
    this.storeId ??= this.query<{ id: string }>('SELECT id FROM spica_store', []).then(
      (r) => r.rows[0].id,
      (err: unknown) => {
        this.storeId = null; // a later call asks again
        throw err;
      },
    );
    return this.storeId;
  }

  async getReplay(version: string, specHash: string): Promise<EvalOutcome | null> {
    checkSpecHash(specHash);
    const r = await this.query<{ entry: string }>('SELECT entry FROM spica_replay_cache WHERE version = $1 AND spec_hash = $2', [version, specHash]);
    return r.rows.length === 0 ? null : parseReplayEntry(r.rows[0].entry, specHash);
  }

  async getReplays(version: string, specHashes: readonly string[]): Promise<Map<string, EvalOutcome>> {
    const out = new Map<string, EvalOutcome>();
    if (specHashes.length === 0) return out;
    for (const h of specHashes) checkSpecHash(h);
    const r = await this.query<{ spec_hash: string; entry: string }>(
      'SELECT spec_hash, entry FROM spica_replay_cache WHERE version = $1 AND spec_hash = ANY($2::text[])',
      [version, [...new Set(specHashes)]],
    );
    for (const row of r.rows) {
      const o = parseReplayEntry(row.entry, row.spec_hash);
      if (o) out.set(row.spec_hash, o);
    }
    return out;
  }

  async putReplay(version: string, specHash: string, outcome: EvalOutcome): Promise<boolean> {
    checkSpecHash(specHash);
    if (!isCacheable(outcome)) return false;
    await this.query('INSERT INTO spica_replay_cache (version, spec_hash, entry) VALUES ($1, $2, $3) ON CONFLICT (version, spec_hash) DO NOTHING', [
      version,
      specHash,
      replayEntryText(version, specHash, outcome),
    ]);
    return true;
  }

  async putBlob(kind: BlobKind, name: string, text: string): Promise<BlobRef> {
    const safe = safeBlobName(name);
    const sha256 = createHash('sha256').update(text).digest('hex');
    await this.query(
      `INSERT INTO spica_blobs (kind, name, body, sha256) VALUES ($1, $2, $3, $4)
       ON CONFLICT (kind, name) DO UPDATE SET body = EXCLUDED.body, sha256 = EXCLUDED.sha256, updated_at = now()`,
      [kind, safe, text, sha256],
    );
    return { store: 'postgresql', kind, name: safe, location: `${this.shownUrl}#${kind}/${safe}`, sha256, bytes: Buffer.byteLength(text) };
  }

  async getBlob(kind: BlobKind, name: string): Promise<string | null> {
    const r = await this.query<{ body: string }>('SELECT body FROM spica_blobs WHERE kind = $1 AND name = $2', [kind, safeBlobName(name)]);
    return r.rows.length === 0 ? null : r.rows[0].body;
  }

  async close(): Promise<void> {
    const pool = this.poolPromise;
    this.poolPromise = null;
    if (pool) await (await pool).end();
  }
}
