// Model lookup: canonical Hugging Face id, alias or bare name (case-insensitive), else a
// config.json on disk. The facts themselves live in known-models.ts.

import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { InputError } from '../errors.js';
import type { ModelArch } from './arch.js';
import { loadHfConfig } from './hf-config.js';
import { KNOWN_MODELS, MODEL_ALIASES } from './known-models.js';

interface Index {
  byKey: Map<string, ModelArch>;
  /** Bare names (no org) that more than one org publishes: the user must give the org. */
  ambiguous: Map<string, string[]>;
}

function bareName(id: string): string {
  const slash = id.lastIndexOf('/');
  return slash >= 0 ? id.slice(slash + 1) : id;
}

function buildIndex(): Index {
  const byKey = new Map<string, ModelArch>();
  const bare = new Map<string, ModelArch[]>();
  for (const m of KNOWN_MODELS) {
    const key = m.id.toLowerCase();
    if (byKey.has(key)) throw new Error(`model catalog: duplicate id ${m.id}`);
    byKey.set(key, m);
    const b = bareName(m.id).toLowerCase();
    bare.set(b, [...(bare.get(b) ?? []), m]);
  }
  const ambiguous = new Map<string, string[]>();
  for (const [b, models] of bare) {
    if (byKey.has(b)) continue;
    if (models.length === 1) byKey.set(b, models[0]);
    else ambiguous.set(b, models.map((m) => m.id));
  }
  for (const [alias, id] of Object.entries(MODEL_ALIASES)) {
    const target = byKey.get(id.toLowerCase());
    if (!target) throw new Error(`model catalog: alias ${alias} points at unknown id ${id}`);
    const key = alias.toLowerCase();
    const existing = byKey.get(key);
    if (existing && existing !== target) throw new Error(`model catalog: alias ${alias} collides with ${existing.id}`);
    byKey.set(key, target);
    // An org-qualified alias also answers to its bare name unless that name means something else.
    const b = bareName(alias).toLowerCase();
    if (!byKey.has(b) && !ambiguous.has(b)) byKey.set(b, target);
  }
  return { byKey, ambiguous };
}

const INDEX = buildIndex();

/** Canonical ids of every catalogued model, sorted. */
export function listModels(): string[] {
  return KNOWN_MODELS.map((m) => m.id).sort((a, b) => a.localeCompare(b));
}

/** The catalog entry for an id or alias, or undefined (no disk access). */
export function findCatalogModel(name: string): ModelArch | undefined {
  const hit = INDEX.byKey.get(name.trim().toLowerCase());
  return hit ? structuredClone(hit) : undefined;
}

/**
 * Architecture of `name`: a catalog id / alias (case-insensitive, org optional when unambiguous),
 * else a path to a Hugging Face config.json (or a directory holding one), absolute or relative to
 * `baseDir` (default: the working directory).
 */
export function resolveModel(name: string, opts: { baseDir?: string } = {}): ModelArch {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw new InputError('model name is empty');
  const hit = findCatalogModel(trimmed);
  if (hit) return hit;

  const ambiguous = INDEX.ambiguous.get(trimmed.toLowerCase());
  if (ambiguous) {
    throw new InputError(`model '${trimmed}' is ambiguous; use one of: ${ambiguous.join(', ')}`);
  }

  const path = isAbsolute(trimmed) ? trimmed : resolve(opts.baseDir ?? process.cwd(), trimmed);
  if (existsSync(path)) {
    const file = statSync(path).isDirectory() ? join(path, 'config.json') : path;
    if (!existsSync(file)) throw new InputError(`model directory ${path} has no config.json`);
    return loadHfConfig(file);
  }
  if (trimmed.endsWith('.json')) throw new InputError(`model config file not found: ${path}`);
  throw new InputError(
    `unknown model '${trimmed}'. Known models: ${listModels().join(', ')}. ` +
      'Or pass the path of a Hugging Face config.json.',
  );
}
