// A sweep on Temporal with the shared PostgreSQL store rides out a restart of that store
// (src/store/postgres-store.ts): the server is stopped mid-sweep and started again 20 s later —
// longer than the activities' own retries last (5 attempts, 1–8 s apart: ~15 s, after which the
// sweep used to fail) —; the sweep completes with the SweepResult of an uninterrupted --local run. On a PostgreSQL
// server of its own (it is halted), against the shared test Temporal server.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runLocalSweep } from '../../activities/local-sweep.js';
import { main } from '../../src/cli/main.js';
import { parseConfigText } from '../../src/config/load.js';
import type { SweepResult } from '../../src/search/sweepResult.js';
import { freePort } from '../../src/cli/temporal/free-port.js';
import { closeStores, STORE_URL_ENV } from '../../src/store/select.js';
import { createTestDatabase, startPostgres, type PostgresServer } from '../support/postgres.js';
import { captureIo, neutralized, TINY_CONFIG_YAML, uniqueTaskQueue, useTestTemporal, writeTempConfig } from './harness.js';

// One agg branch, 24 rounds of 2 replays of a few hundred ms: the outage lands mid-sweep.
const YAML = TINY_CONFIG_YAML.replace('max_rounds: 2', 'max_rounds: 24')
  .replace('isl: 128', 'isl: 2048')
  .replace('osl: 64', 'osl: 256')
  .replace('concurrency: 4', 'concurrency: 16')
  .replace('num_request_ratio: 4', 'num_request_ratio: 48');

const t = useTestTemporal();
let pg: PostgresServer;

beforeAll(async () => {
  pg = await startPostgres();
}, 120_000);
afterAll(async () => {
  await closeStores();
  delete process.env[STORE_URL_ENV];
  await pg?.stop();
});

it('the store is restarted mid-sweep: the sweep waits for it and ends with the uninterrupted result', async () => {
  const url = await createTestDatabase(pg.url, 'spica_outage');
  const file = writeTempConfig(YAML);
  const run = captureIo();
  const sweeping = main(['sweep', file, '--address', t.address, '--task-queue', uniqueTaskQueue('store-outage'), '--store', url, '--json'], run.io);
  await expect.poll(() => /trials [1-9]\d*\//.test(run.out.stderr), { timeout: 60_000, interval: 100 }).toBe(true);
  const before = /trials (\d+)\//.exec(run.out.stderr.split('\n').filter((l) => l.includes('trials')).at(-1)!)![1];
  pg.halt();
  await new Promise((r) => setTimeout(r, 20_000));
  pg.restart();
  expect(await sweeping).toBe(0);
  const result = JSON.parse(run.out.stdout) as SweepResult;
  const local = await runLocalSweep(parseConfigText(YAML));
  expect(Number(before)).toBeLessThan(local.counts.evaluated); // the outage fell mid-sweep
  expect(neutralized(result)).toEqual(neutralized(local));
}, 180_000);

it('a store that cannot be used at the start: sweep, resume and worker exit 3 at once, nothing started', async () => {
  const url = `postgresql://spica@127.0.0.1:${await freePort()}/nowhere`;
  const taskQueue = uniqueTaskQueue('store-unusable');
  for (const args of [['sweep', writeTempConfig(YAML)], ['resume', 'spica-any'], ['worker']]) {
    const run = captureIo();
    const t0 = Date.now();
    expect(await main([...args, '--address', t.address, '--task-queue', taskQueue, '--store', url], run.io)).toBe(3);
    expect(run.out.stderr).toMatch(/^spica \w+: PostgreSQL store postgresql:\/\/spica@127\.0\.0\.1:\d+\/nowhere is not usable: connect ECONNREFUSED .* \(check --store \/ SPICA_STORE_URL\)\n$/);
    expect(Date.now() - t0).toBeLessThan(10_000); // before: the sweep's activities retried it for minutes
  }
  const listed = await t.client.workflow.list({ query: `TaskQueue = '${taskQueue}'` });
  for await (const _ of listed) throw new Error('a run was started');
});

