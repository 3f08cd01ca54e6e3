// Every shipped example, as a user runs it (the bin, compiled CLI, whole processes): `spica sweep` on
// Temporal (its own worker; the test server already running, fresh caches) prints the SweepResult
// `spica sweep --local` prints, apart from the run's id. One engine, one answer, whichever path.
import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { SweepResult } from '../../src/search/sweepResult.js';
import { spawnSpica, uniqueTaskQueue, useTestTemporal } from './harness.js';

const EXAMPLES = path.join(fileURLToPath(new URL('../../', import.meta.url)), 'examples');
const t = useTestTemporal();

const freshStores = () => ({
  SPICA_CACHE_DIR: mkdtempSync(path.join(os.tmpdir(), 'spica-example-cache-')),
  SPICA_RESULT_STORE: mkdtempSync(path.join(os.tmpdir(), 'spica-example-results-')),
});

async function sweepJson(args: string[]): Promise<SweepResult> {
  const run = spawnSpica(['sweep', ...args, '--json'], freshStores());
  const code = await run.exited;
  const { stdout, stderr } = run.output();
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as SweepResult;
}

describe('the examples', () => {
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml')).sort();

  it('exist', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  for (const file of files) {
    it(`${file}: the same SweepResult on Temporal as --local`, { timeout: 180_000 }, async () => {
      const config = path.join(EXAMPLES, file);
      const local = await sweepJson([config, '--local']);
      const durable = await sweepJson([config, '--address', t.address, '--namespace', t.namespace, '--task-queue', uniqueTaskQueue('example')]);
      expect(durable.sweep_id).toMatch(/^spica-/);
      expect(local.counts.evaluated).toBeGreaterThan(0);
      expect({ ...durable, sweep_id: null }).toEqual({ ...local, sweep_id: null });
    });
  }
});
