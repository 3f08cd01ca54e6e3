// specHashFor (activities/replay-wave.ts) remembers spec hashes per (config hash, trace, candidate key)
// for the report's re-hydration of the trials the same worker replayed: the remembered hash is the one
// a fresh build gives, and two configs never share an entry for the same candidate key.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { configHash } from '../../src/search/sweepPlan.js';
import { branchMaterializer, compactKey } from '../../activities/materialize.js';
import { specHashFor } from '../../activities/replay-wave.js';
import { runLocalSweep } from '../../activities/local-sweep.js';
import { TINY_CONFIG_YAML } from '../temporal/harness.js';

function contextOf(yaml: string) {
  const config = parseConfigText(yaml);
  return { config, mode: 'agg' as const, traceSha256: null, config_hash: configHash(config) };
}

describe('specHashFor', () => {
  it('answers a remembered key with the hash a fresh build gives, per config', async () => {
    const a = contextOf(TINY_CONFIG_YAML);
    const b = contextOf(TINY_CONFIG_YAML.replace('isl: 128', 'isl: 256'));
    const point = (await runLocalSweep(a.config)).candidates[0].point;
    const mA = branchMaterializer(a).materialize(point);
    const key = compactKey(mA.key);
    const first = specHashFor(a, { ...mA, key });
    // Without a config hash nothing is remembered: a fresh build.
    const fresh = specHashFor({ config: a.config, mode: 'agg', traceSha256: null }, mA);
    expect(first).toEqual(fresh);
    expect('hash' in first).toBe(true);
    // The trial's key (as the report passes it) finds the same entry.
    expect(specHashFor(a, mA, key)).toBe(first);
    // Another config with a candidate of the same key: its own spec (different workload), its own hash.
    const mB = branchMaterializer(b).materialize(point);
    expect(compactKey(mB.key)).toBe(key);
    const other = specHashFor(b, mB, key);
    expect(other).toEqual(specHashFor({ config: b.config, mode: 'agg', traceSha256: null }, mB));
    expect(other).not.toEqual(first);
  });
});
