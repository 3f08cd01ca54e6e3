// Branch contexts by reference (activities/context.ts): the plan activity stores the config under its
// hash, a worker process that never saw it reads it back from the store, and a wrong or missing one
// fails with a message naming the store.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { configHash } from '../../src/search/sweepPlan.js';
import { resolveContext, storeConfig } from '../../activities/context.js';
import { TINY_CONFIG_YAML } from '../temporal/harness.js';

describe('config by reference', () => {
  it('round-trips through the store under its hash and is cached per process', async () => {
    process.env.SPICA_RESULT_STORE = mkdtempSync(path.join(os.tmpdir(), 'spica-cfgref-'));
    const config = parseConfigText(TINY_CONFIG_YAML.replace('seed: 5', 'seed: 4242'));
    const hash = configHash(config);
    await storeConfig(config, hash);
    const ctx = await resolveContext({ config_ref: hash, mode: 'agg', traceSha256: null });
    expect(ctx.config).toEqual(config);
    expect(ctx).toMatchObject({ mode: 'agg', traceSha256: null, config_hash: hash });
    // Inline contexts pass through untouched.
    const inline = { config, mode: 'agg' as const, traceSha256: null };
    expect(await resolveContext(inline)).toBe(inline);
    // The stored text is the config: ~2 KB that no longer travels in every replay input.
    expect(JSON.stringify(config).length).toBeGreaterThan(1500);
  });

  it('fails naming the store when the config is missing or does not hash to its name', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'spica-cfgref-'));
    process.env.SPICA_RESULT_STORE = dir;
    await expect(resolveContext({ config_ref: 'a'.repeat(64), mode: 'agg', traceSha256: null })).rejects.toThrow(/is not in .*shared store/);
    const other = parseConfigText(TINY_CONFIG_YAML.replace('seed: 5', 'seed: 99'));
    const wrong = 'b'.repeat(64);
    const configsDir = path.join(dir, 'configs');
    (await import('node:fs')).mkdirSync(configsDir, { recursive: true });
    writeFileSync(path.join(configsDir, `${wrong}.json`), JSON.stringify(other));
    await expect(resolveContext({ config_ref: wrong, mode: 'agg', traceSha256: null })).rejects.toThrow(/does not hash to its name/);
  });
});
