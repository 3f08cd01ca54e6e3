// Shared fixtures for the config tests: a minimal valid config and a throwaway systems directory.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFromObject, parseConfigText } from '../../src/config/load.js';
import { ConfigInvalid, type ConfigIssue } from '../../src/config/errors.js';
import type { SmartSearchConfig } from '../../src/config/schema.js';

/** A systems dir with two SKUs, so the tests do not depend on the repository's systems/. */
export function makeSystemsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spica-systems-'));
  for (const sku of ['h100_sxm', 'h200_sxm']) writeFileSync(join(dir, `${sku}.yaml`), `name: ${sku}\n`);
  return dir;
}
export const SYSTEMS = makeSystemsDir();

export type Obj = Record<string, unknown>;

export function baseConfig(): Obj {
  return {
    search_space: { model_name: 'meta-llama/Llama-3.1-8B-Instruct', hardware_sku: 'h100_sxm', gpu_budget: 8 },
    workload: { isl: 1024, osl: 128, concurrency: 8, num_request_ratio: 2 },
  };
}

/** Deep-merge `patch` into a fresh base config; a value of `undefined` deletes the key. */
export function withPatch(patch: Obj, base: Obj = baseConfig()): Obj {
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) delete out[k];
    else if (v && typeof v === 'object' && !Array.isArray(v) && out[k] && typeof out[k] === 'object' && !Array.isArray(out[k]))
      out[k] = withPatch(v as Obj, out[k] as Obj);
    else out[k] = v;
  }
  return out;
}

export function load(obj: unknown): SmartSearchConfig {
  return configFromObject(obj, { systemsDir: SYSTEMS });
}

export function loadText(text: string, opts: { baseDir?: string } = {}): SmartSearchConfig {
  return parseConfigText(text, { sourceName: 'test.yaml', systemsDir: SYSTEMS, ...opts });
}

/** The issues a config is rejected with (fails the test if it is accepted). */
export function issuesOf(fn: () => unknown): ConfigIssue[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigInvalid) return err.issues;
    throw err;
  }
  throw new Error('expected ConfigInvalid, but the config was accepted');
}
