// The PostgreSQL store through an outage of a server it reached before (postgres-store.ts): a call
// waits for the server to come back, within STORE_OUTAGE_WAIT_MS; past it the call fails
// StoreUnavailable (exit 3); a server never reached fails at once. On a server of its own, halted
// and restarted on the same port and data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailable } from '../../src/errors.js';
import { freePort } from '../../src/cli/temporal/free-port.js';
import { isConnectionFailure } from '../../src/store/connection-failure.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { startPostgres, type PostgresServer } from '../support/postgres.js';

describe('connection failures', () => {
  it('are the socket errors and SQLSTATEs of an unreachable or restarting server, not faults of a statement', () => {
    expect(isConnectionFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isConnectionFailure({ code: '57P01', message: 'terminating connection due to administrator command' })).toBe(true);
    expect(isConnectionFailure({ code: '57P03', message: 'the database system is starting up' })).toBe(true);
    expect(isConnectionFailure({ code: '08006', message: 'connection failure' })).toBe(true);
    expect(isConnectionFailure(new Error('Connection terminated unexpectedly'))).toBe(true);
    const refused = (host: string) => Object.assign(new Error(`connect ECONNREFUSED ${host}`), { code: 'ECONNREFUSED' });
    expect(isConnectionFailure(new AggregateError([refused('::1'), refused('127.0.0.1')]))).toBe(true);
    expect(isConnectionFailure({ code: '42601', message: 'syntax error at or near "SELEC"' })).toBe(false);
    expect(isConnectionFailure({ code: '28P01', message: 'password authentication failed' })).toBe(false);
    expect(isConnectionFailure(new Error('boom'))).toBe(false);
    expect(isConnectionFailure(null)).toBe(false);
  });
});

describe('postgresql store outage', () => {
  let pg: PostgresServer;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await pg?.stop();
  });

  it('a call waits for a server it reached before to come back, saying so once at each end', async () => {
    const notices: string[] = [];
    const store = new PostgresStore(pg.url, { outageWaitMs: 60_000, notice: (l) => notices.push(l) });
    try {
      await store.putBlob('config', 'outage-a', 'text a');
      pg.halt();
      const calls = Promise.all([store.getBlob('config', 'outage-a'), store.putBlob('config', 'outage-b', 'text b')]);
      await new Promise((r) => setTimeout(r, 1_500));
      pg.restart();
      expect((await calls)[0]).toBe('text a');
      expect(await store.getBlob('config', 'outage-b')).toBe('text b');
      expect(notices).toHaveLength(2);
      expect(notices[0]).toMatch(/\[WARN\] PostgreSQL store postgresql:\/\/spica@127\.0\.0\.1:\d+\/postgres unreachable \(.+\); each call waits up to 60 s for it\n$/);
      expect(notices[1]).toMatch(/\[INFO\] PostgreSQL store .* reachable again after \d+ s\n$/);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('past the wait the call fails StoreUnavailable (exit 3); a server never reached fails at once', async () => {
    const notices: string[] = [];
    const store = new PostgresStore(pg.url, { outageWaitMs: 1_500, notice: (l) => notices.push(l) });
    try {
      await store.putBlob('config', 'outage-c', 'text c');
      pg.halt();
      const failed = await store.getBlob('config', 'outage-c').catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(StoreUnavailable);
      expect((failed as StoreUnavailable).exitCode).toBe(3);
      expect((failed as Error).message).toMatch(/^PostgreSQL store postgresql:\/\/spica@127\.0\.0\.1:\d+\/postgres unreachable for [12] s \(.+\)$/);
    } finally {
      pg.restart();
      await store.close();
    }
    const never = new PostgresStore(`postgresql://spica@127.0.0.1:${await freePort()}/postgres`, { outageWaitMs: 60_000, notice: (l) => notices.push(l) });
    const t0 = Date.now();
    const err = await never.getBlob('config', 'x').catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(StoreUnavailable);
    expect((err as Error).message).toMatch(/is not usable: connect ECONNREFUSED/);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(notices).toHaveLength(1); // only the first store's outage
    await never.close();
  }, 120_000);
});
