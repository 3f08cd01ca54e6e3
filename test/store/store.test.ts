// The store contract, run against both implementations: the local directory and a real PostgreSQL
// server (test/setup/postgresServer.ts). Concurrent writers of one key, from separate connections.
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ReplayResultCache } from '../../activities/result-cache.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { PostgresStore, redactUrl } from '../../src/store/postgres-store.js';
import { isCacheable, type SpicaStore } from '../../src/store/store.js';
import { createTestDatabase } from '../support/postgres.js';
import { StoreUnavailable } from '../../src/errors.js';

const hash = 'a'.repeat(64);
const other = 'b'.repeat(64);
const ok = { ok: true as const, metrics: { output_throughput_tok_s: 1 } };
const timeout = { ok: false as const, reason_category: 'runtime_timeout' as const, reason: 'exceed runtime: replay > 1s' };
const crash = { ok: false as const, reason_category: 'replay_runtime' as const, reason: 'boom' };
const kv = { ok: false as const, reason_category: 'kv_capacity' as const, reason: 'no room' };

const tmp = (p: string) => mkdtempSync(path.join(os.tmpdir(), p));

let pgUrl = '';
const opened: SpicaStore[] = [];
beforeAll(async () => {
  pgUrl = await createTestDatabase(inject('postgresUrl'));
});
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
});

const makers: [string, () => SpicaStore][] = [
  ['directory', () => new DirectoryStore(tmp('spica-cache-'), tmp('spica-results-'))],
  [
    'postgresql',
    () => {
      const s = new PostgresStore(pgUrl);
      opened.push(s);
      return s;
    },
  ],
];

describe.each(makers)('%s store', (_kind, make) => {
  it('round-trips replay outcomes per version; never stores timeouts or runtime failures', async () => {
    const store = make();
    const v = `v-${Math.random()}`;
    expect(await store.getReplay(v, hash)).toBeNull();
    expect(await store.putReplay(v, hash, ok)).toBe(true);
    expect(await store.getReplay(v, hash)).toEqual(ok);
    expect(await store.getReplay(`${v}-other`, hash)).toBeNull();
    expect([timeout, crash, kv, ok].map(isCacheable)).toEqual([false, false, true, true]);
    expect(await store.putReplay(v, other, timeout)).toBe(false);
    expect(await store.putReplay(v, other, crash)).toBe(false);
    expect(await store.getReplay(v, other)).toBeNull();
    expect(await store.putReplay(v, other, kv)).toBe(true);
    expect(await store.getReplays(v, [hash, other, 'c'.repeat(64)])).toEqual(new Map<string, unknown>([[hash, ok], [other, kv]]));
    await expect(store.getReplay(v, '../../etc/passwd')).rejects.toThrow(/not a spec hash/);
  });

  it('keeps the first value of a key written by many concurrent writers (separate connections)', async () => {
    const writers = Array.from({ length: 8 }, () => make());
    const v = `concurrent-${Math.random()}`;
    const results = await Promise.all(writers.flatMap((w) => [w.putReplay(v, hash, ok), w.putReplay(v, hash, ok)]));
    expect(results.every(Boolean)).toBe(true);
    for (const w of writers) expect(await w.getReplay(v, hash)).toEqual(ok);
  });

  it('writes blobs whole and reads them back by name; a missing blob is null', async () => {
    const store = make();
    const big = JSON.stringify({ rows: Array.from({ length: 40_000 }, (_, i) => ({ i, s: 'x'.repeat(40) })) });
    const ref = await store.putBlob('result', 'sweep-1', big);
    expect(ref).toMatchObject({ kind: 'result', name: 'sweep-1', bytes: Buffer.byteLength(big) });
    expect(await store.getBlob('result', 'sweep-1')).toBe(big);
    await store.putBlob('result', 'sweep-1', '{"v":2}');
    expect(await store.getBlob('result', 'sweep-1')).toBe('{"v":2}');
    await store.putBlob('trials', 'sweep-1/branch-agg/00000', '[1]');
    expect(await store.getBlob('trials', 'sweep-1/branch-agg/00000')).toBe('[1]');
    expect(await store.getBlob('trials', 'sweep-1/branch-agg/00001')).toBeNull();
    expect(await store.getBlob('result', 'nope')).toBeNull();
    expect(ref.location).not.toContain('..');
  });
});

describe('directory store files', () => {
  it('one file per (version, hash), atomic (no tmp files left); a corrupt or foreign entry is a miss', async () => {
    const dir = tmp('spica-cache-');
    const cache = ReplayResultCache.inDirectory(dir, 'spica-replay/1');
    expect(await cache.put(hash, ok)).toBe(true);
    expect(readdirSync(path.join(dir, 'spica-replay_1', 'aa'))).toEqual([`${hash}.json`]);
    expect(await cache.put(other, timeout)).toBe(false);
    expect(existsSync(path.join(dir, 'spica-replay_1', 'bb'))).toBe(false);
    writeFileSync(path.join(dir, 'spica-replay_1', 'aa', `${hash}.json`), '{"spec_hash":"other","outcome":{"ok":true}}');
    expect(await cache.get(hash)).toBeNull();
    writeFileSync(path.join(dir, 'spica-replay_1', 'aa', `${hash}.json`), '{torn');
    expect(await cache.get(hash)).toBeNull();
  });
});

// Workers carry the id in their Temporal identity; a sweep refuses workers of another store (task-queue.ts).
describe('store id', () => {
  it('directory: one id per results directory, whatever the cache directory; concurrent first users agree', async () => {
    const results = tmp('spica-results-');
    const views = Array.from({ length: 6 }, () => new DirectoryStore(tmp('spica-cache-'), results));
    const ids = await Promise.all(views.map((v) => v.id()));
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(readdirSync(results)).toEqual(['store-id']); // no tmp files left
    expect(await new DirectoryStore(tmp('spica-cache-'), results).id()).toBe(ids[0]);
    expect(await new DirectoryStore(tmp('spica-cache-'), tmp('spica-results-')).id()).not.toBe(ids[0]);
    // A results directory that cannot be created: StoreUnavailable (exit 3), naming the file.
    const blocker = path.join(tmp('spica-results-'), 'a-file');
    writeFileSync(blocker, '');
    await expect(new DirectoryStore(tmp('spica-cache-'), path.join(blocker, 'results')).id()).rejects.toThrow(StoreUnavailable);
    await expect(new DirectoryStore(tmp('spica-cache-'), path.join(blocker, 'results')).id()).rejects.toThrow(/cannot create the store id .*a-file\/results\/store-id/);
  });

  it('postgresql: one id per database, whatever the connection string names it by', async () => {
    const a = new PostgresStore(pgUrl);
    const b = new PostgresStore(`${pgUrl}${pgUrl.includes('?') ? '&' : '?'}application_name=spica-other-view`);
    const c = new PostgresStore(await createTestDatabase(inject('postgresUrl')));
    opened.push(a, b, c);
    const [idA, idB, idC] = await Promise.all([a.id(), b.id(), c.id()]);
    expect(idA).toMatch(/^[0-9a-f]{32}$/);
    expect(idB).toBe(idA);
    expect(idC).not.toBe(idA);
  });
});

describe('postgresql connection strings', () => {
  it('never show the password', () => {
    expect(redactUrl('postgresql://u:secret@db:5432/spica')).toBe('postgresql://u:***@db:5432/spica');
  });
});
