import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTomlProfile, resolveTemporalTarget } from '../../src/cli/temporal/connection-target.js';

const TOML = `
# Temporal client config
[profile.default]
address = "temporal.example:7233"  # prod
namespace = 'sweeps'
api_key = "secret"

[profile.default.tls]
disabled = true

[profile.staging]
address = "staging:7233"
`;

function homeWithToml(text: string): string {
  const home = mkdtempSync(path.join(os.tmpdir(), 'spica-home-'));
  const dir = path.join(home, '.config', 'temporalio');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'temporal.toml'), text);
  return home;
}

describe('Temporal connection target', () => {
  it('reads string keys of one profile table only', () => {
    expect(readTomlProfile(TOML, 'default')).toEqual({ address: 'temporal.example:7233', namespace: 'sweeps', api_key: 'secret' });
    expect(readTomlProfile(TOML, 'staging')).toEqual({ address: 'staging:7233' });
    expect(readTomlProfile(TOML, 'missing')).toEqual({});
  });

  it('has no address when nothing is configured (→ embedded server)', () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'spica-home-'));
    expect(resolveTemporalTarget({ env: {}, homeDir: home })).toEqual({ namespace: 'default', addressSource: 'none' });
  });

  it('prefers flag over env over the default profile', () => {
    const home = homeWithToml(TOML);
    expect(resolveTemporalTarget({ env: {}, homeDir: home })).toEqual({
      address: 'temporal.example:7233', namespace: 'sweeps', addressSource: 'profile',
    });
    const env = { TEMPORAL_ADDRESS: 'env:7233', TEMPORAL_NAMESPACE: 'envns' };
    expect(resolveTemporalTarget({ env, homeDir: home })).toEqual({ address: 'env:7233', namespace: 'envns', addressSource: 'env' });
    expect(resolveTemporalTarget({ env, homeDir: home, address: 'flag:1', namespace: 'flagns' })).toEqual({
      address: 'flag:1', namespace: 'flagns', addressSource: 'flag',
    });
  });

  it('honours TEMPORAL_PROFILE and TEMPORAL_CONFIG_FILE', () => {
    const home = homeWithToml(TOML);
    expect(resolveTemporalTarget({ env: { TEMPORAL_PROFILE: 'staging' }, homeDir: home }).address).toBe('staging:7233');
    const other = path.join(mkdtempSync(path.join(os.tmpdir(), 'spica-cfg-')), 'c.toml');
    writeFileSync(other, '[profile.default]\naddress = "other:1"\n');
    expect(resolveTemporalTarget({ env: { TEMPORAL_CONFIG_FILE: other }, homeDir: home }).address).toBe('other:1');
  });
});
