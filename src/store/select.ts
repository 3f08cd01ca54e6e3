// Which store this process uses: `SPICA_STORE_URL` (set by `--store` on the CLI commands) holding a
// PostgreSQL connection string selects the shared PostgreSQL store; unset, the local directory store
// (`SPICA_CACHE_DIR` for replays, `SPICA_RESULT_STORE` for results and trial chunks, defaults under
// `.spica/`). Read per call so a worker flag or a test can switch it; one pool per connection string.
import path from 'node:path';
import { InputError } from '../errors.js';
import { spicaStateDir } from '../cli/temporal/project-paths.js';
import { DirectoryStore } from './directory-store.js';
import { isPostgresUrl, PostgresStore } from './postgres-store.js';
import type { SpicaStore } from './store.js';

export const STORE_URL_ENV = 'SPICA_STORE_URL';
export const CACHE_DIR_ENV = 'SPICA_CACHE_DIR';
export const RESULT_STORE_ENV = 'SPICA_RESULT_STORE';

/** `SPICA_CACHE_DIR`, else `.spica/cache/` in the project. */
export function resultCacheDir(): string {
  return process.env[CACHE_DIR_ENV] || path.join(spicaStateDir(), 'cache');
}

/** `SPICA_RESULT_STORE`, else `.spica/results/` in the project. */
export function resultStoreDir(): string {
  return process.env[RESULT_STORE_ENV] || path.join(spicaStateDir(), 'results');
}

const postgresStores = new Map<string, PostgresStore>();

/** Checks a `--store` value: a PostgreSQL connection string (the only shared store there is). */
export function checkStoreUrl(url: string): string {
  if (!isPostgresUrl(url)) throw new InputError(`--store / ${STORE_URL_ENV} must be a PostgreSQL connection string (postgresql://user@host:5432/db), got '${url}'`);
  return url;
}

/** The store this process reads and writes now. */
export function spicaStore(): SpicaStore {
  const url = process.env[STORE_URL_ENV];
  if (!url) return new DirectoryStore(resultCacheDir(), resultStoreDir());
  checkStoreUrl(url);
  let store = postgresStores.get(url);
  if (!store) {
    store = new PostgresStore(url);
    postgresStores.set(url, store);
  }
  return store;
}

/** With the PostgreSQL store selected, fails at once (exit 3) if it cannot be used now (PostgresStore.check). */
export async function requireUsableStore(): Promise<void> {
  const store = spicaStore();
  if (store instanceof PostgresStore) await store.check();
}

/** Closes every PostgreSQL pool this process opened (worker shutdown, tests). */
export async function closeStores(): Promise<void> {
  const stores = [...postgresStores.values()];
  postgresStores.clear();
  await Promise.all(stores.map((s) => s.close()));
}

/** `--store URL` on a command: this process (and the in-process worker) uses that store. */
export function useStoreFlag(url: string | undefined): void {
  if (url === undefined) return;
  process.env[STORE_URL_ENV] = checkStoreUrl(url);
}

/** Usage line shared by the commands that take `--store`. */
export const STORE_OPTION_USAGE = `  --store URL          shared store (PostgreSQL connection string) for the replay cache and stored
                       results (default: ${STORE_URL_ENV}, else the local .spica/ directory)`;
