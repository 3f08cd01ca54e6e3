// Where `spica sweep`/`spica worker` connect: --address flag, else TEMPORAL_ADDRESS, else the
// selected profile of Temporal's standard client config file (temporal.toml, as read by the
// `temporal` CLI and @temporalio/envconfig). No address anywhere means "embedded server".
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InputError } from '../../errors.js';

export interface TemporalTarget {
  /** undefined → no server configured: start the embedded one. */
  address?: string;
  namespace: string;
  addressSource: 'flag' | 'env' | 'profile' | 'none';
}

export interface TargetInputs {
  address?: string;
  namespace?: string;
  env?: NodeJS.ProcessEnv;
  homeDir?: string;
}

export function temporalConfigFilePath(env: NodeJS.ProcessEnv, homeDir: string): string {
  if (env.TEMPORAL_CONFIG_FILE) return env.TEMPORAL_CONFIG_FILE;
  const configHome = env.XDG_CONFIG_HOME || path.join(homeDir, '.config');
  return path.join(configHome, 'temporalio', 'temporal.toml');
}

function tomlString(raw: string, where: string): string {
  const v = raw.trim();
  const basic = /^"((?:[^"\\]|\\.)*)"\s*(#.*)?$/.exec(v);
  if (basic) return JSON.parse(`"${basic[1]}"`) as string;
  const literal = /^'([^']*)'\s*(#.*)?$/.exec(v);
  if (literal) return literal[1];
  throw new InputError(`${where}: expected a quoted string, got ${v}`);
}

/**
 * The string keys of one `[profile.<name>]` table of a temporal.toml. Only what the target needs
 * (address, namespace) is interpreted; other keys and tables are skipped, not validated.
 */
export function readTomlProfile(text: string, profile: string, sourceName = 'temporal.toml'): Record<string, string> {
  const out: Record<string, string> = {};
  let inProfile = false;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '' || line.startsWith('#')) continue;
    const table = /^\[\s*([^\]]+?)\s*\]\s*(#.*)?$/.exec(line);
    if (table) {
      const name = table[1].split('.').map((part) => part.trim().replace(/^"(.*)"$/, '$1'));
      inProfile = name.length === 2 && name[0] === 'profile' && name[1] === profile;
      continue;
    }
    if (!inProfile) continue;
    const kv = /^([A-Za-z0-9_-]+)\s*=\s*(.+)$/.exec(line);
    if (kv && (kv[2].trim().startsWith('"') || kv[2].trim().startsWith("'"))) {
      out[kv[1]] = tomlString(kv[2], `${sourceName}:${i + 1}`);
    }
  }
  return out;
}

export function resolveTemporalTarget(inputs: TargetInputs = {}): TemporalTarget {
  const env = inputs.env ?? process.env;
  let profile: Record<string, string> = {};
  const file = temporalConfigFilePath(env, inputs.homeDir ?? os.homedir());
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    text = undefined; // no config file is the common case
  }
  if (text !== undefined) profile = readTomlProfile(text, env.TEMPORAL_PROFILE || 'default', file);

  const namespace = inputs.namespace || env.TEMPORAL_NAMESPACE || profile.namespace || 'default';
  if (inputs.address) return { address: inputs.address, namespace, addressSource: 'flag' };
  if (env.TEMPORAL_ADDRESS) return { address: env.TEMPORAL_ADDRESS, namespace, addressSource: 'env' };
  if (profile.address) return { address: profile.address, namespace, addressSource: 'profile' };
  return { namespace, addressSource: 'none' };
}
