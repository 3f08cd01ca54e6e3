// Loading a SmartSearchConfig from YAML text, a file, or an already-parsed object (the Temporal
// workflow receives JSON). Every problem is collected and thrown at once as ConfigInvalid, each
// with its YAML path, line and column. The checks that need the filesystem (the SKU's system YAML,
// the trace file) live here, at the edge; the schema itself stays pure.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LineCounter, parseDocument } from 'yaml';
import { InputError } from '../errors.js';
import { findCatalogModel, listModels, resolveModel } from '../model/catalog.js';
import { ConfigInvalid, type ConfigIssue } from './errors.js';
import { SmartSearchConfigSchema, type SmartSearchConfig } from './schema.js';
import { formatConfigPath, yamlLocator, type ConfigPath, type Locator } from './yamlLocation.js';
import { renderValue, valueAt, zodIssuesToConfigIssues } from './zodIssues.js';

export interface ConfigLoadOptions {
  /** Name used in error lines (a file path, or e.g. `configYaml`). */
  sourceName?: string;
  /** Directory `trace_path` is relative to; without it the path is kept as given. */
  baseDir?: string;
  /** Where `<hardware_sku>.yaml` system files live; default: the repository's `systems/`. */
  systemsDir?: string;
}

/** The repository's `systems/` directory (src/config/ → ../../systems). */
export const DEFAULT_SYSTEMS_DIR = fileURLToPath(new URL('../../systems/', import.meta.url));

/** SKUs with a system YAML: `<sku>.yaml` files whose stem has no further dot. */
export function availableSkus(systemsDir: string = DEFAULT_SYSTEMS_DIR): string[] {
  if (!existsSync(systemsDir)) return [];
  return readdirSync(systemsDir)
    .filter((f) => f.endsWith('.yaml') && !f.slice(0, -5).includes('.'))
    .map((f) => f.slice(0, -5))
    .sort();
}

function issueAt(path: ConfigPath, raw: unknown, locate: Locator | undefined, message: string, allowed: string): ConfigIssue {
  const pos = locate?.(path);
  return {
    path: formatConfigPath(path),
    ...(pos ? { line: pos.line, column: pos.column } : {}),
    found: renderValue(valueAt(raw, path)),
    allowed,
    message,
  };
}

/** Checks against the filesystem; they run on the raw object so they report alongside schema issues. */
function fileIssues(raw: unknown, opts: ConfigLoadOptions, locate: Locator | undefined): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const sku = valueAt(raw, ['search_space', 'hardware_sku']);
  if (typeof sku === 'string' && sku.length > 0) {
    const dir = opts.systemsDir ?? DEFAULT_SYSTEMS_DIR;
    const safe = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(sku) && !sku.includes('..');
    if (!safe || !existsSync(join(dir, `${sku}.yaml`))) {
      const skus = availableSkus(dir);
      out.push(
        issueAt(
          ['search_space', 'hardware_sku'],
          raw,
          locate,
          `unknown hardware_sku '${sku}': no system file ${join(dir, `${sku}.yaml`)}`,
          skus.length ? skus.join(', ') : `none (no system YAMLs in ${dir})`,
        ),
      );
    }
  }
  const model = valueAt(raw, ['search_space', 'model_name']);
  if (typeof model === 'string' && model.trim().length > 0) {
    // A catalog id or alias, or a Hugging Face config.json (file or directory) relative to the config file.
    try {
      const arch = resolveModel(model, { baseDir: opts.baseDir });
      const quant = valueAt(raw, ['search_space', 'quantization']);
      // An expert-only format on a dense model would only fail at enumeration; say it here, with the line.
      if (quant === 'mxfp4' && arch.numExperts === 0)
        out.push(issueAt(['search_space', 'quantization'], raw, locate, `quantization mxfp4 is an MoE expert format (gpt-oss checkpoints); ${arch.id} has no experts`, 'bf16, fp8, fp8_block, nvfp4'));
    } catch (e) {
      out.push(
        issueAt(
          ['search_space', 'model_name'],
          raw,
          locate,
          (e as Error).message.replace(/\. Known models: .*$/s, ''),
          `a known model id (${listModels().join(', ')}) or the path of a Hugging Face config.json`,
        ),
      );
    }
  }
  const trace = valueAt(raw, ['workload', 'trace_path']);
  if (typeof trace === 'string' && trace.length > 0) {
    const full = opts.baseDir && !isAbsolute(trace) ? resolve(opts.baseDir, trace) : trace;
    let isFile = false;
    try {
      isFile = statSync(full).isFile();
    } catch {
      isFile = false;
    }
    if (!isFile)
      out.push(
        issueAt(
          ['workload', 'trace_path'],
          raw,
          locate,
          `trace file not found: ${resolve(full)}`,
          opts.baseDir ? 'a Mooncake JSONL file, relative to the config file' : 'a path to an existing Mooncake JSONL file',
        ),
      );
  }
  return out;
}

function validate(raw: unknown, opts: ConfigLoadOptions, locate?: Locator): SmartSearchConfig {
  const source = opts.sourceName ?? '<config>';
  const parsed = SmartSearchConfigSchema.safeParse(raw);
  const issues = parsed.success ? [] : zodIssuesToConfigIssues(parsed.error.issues, { raw, schema: SmartSearchConfigSchema, locate });
  const seen = new Set(issues.map((i) => i.path));
  issues.push(...fileIssues(raw, opts, locate).filter((i) => !seen.has(i.path)));
  if (!parsed.success || issues.length > 0) {
    // Source order reads best; issues without a line keep their relative order.
    const sorted = issues
      .map((i, n) => ({ i, n }))
      .sort((a, b) => (a.i.line ?? 0) - (b.i.line ?? 0) || (a.i.column ?? 0) - (b.i.column ?? 0) || a.n - b.n)
      .map(({ i }) => i);
    throw new ConfigInvalid(source, sorted);
  }
  let config = parsed.data;
  // Paths travel into replays that may run elsewhere: make them absolute against the config file.
  const trace = config.workload.trace_path;
  if (trace !== undefined && opts.baseDir && !isAbsolute(trace))
    config = { ...config, workload: { ...config.workload, trace_path: resolve(opts.baseDir, trace) } };
  const model = config.search_space.model_name;
  if (opts.baseDir && !findCatalogModel(model) && !isAbsolute(model) && existsSync(resolve(opts.baseDir, model)))
    config = { ...config, search_space: { ...config.search_space, model_name: resolve(opts.baseDir, model) } };
  return config;
}

/** Validate an already-parsed object (e.g. JSON from a workflow input). Throws ConfigInvalid. */
export function configFromObject(obj: unknown, opts: ConfigLoadOptions = {}): SmartSearchConfig {
  return validate(obj, opts);
}

/**
 * Hostile-input bounds. A config is a few KB; past 1 MiB it is refused before parsing (the YAML
 * parser needs ~75 bytes per input byte), and an alias may not expand to more than
 * MAX_ALIAS_EXPANSION nodes (an anchor/alias "billion laughs" document is a few hundred bytes).
 */
export const MAX_CONFIG_BYTES = 1 << 20;
export const MAX_ALIAS_EXPANSION = 1000;

function tooLarge(source: string, bytes: number): ConfigInvalid {
  return new ConfigInvalid(source, [
    {
      path: '(document)',
      found: `${(bytes / 2 ** 20).toFixed(1)} MiB`,
      allowed: `at most ${MAX_CONFIG_BYTES / 2 ** 20} MiB (a workload trace belongs in its own file: workload.trace_path)`,
      message: 'the config is too large',
    },
  ]);
}

/** A document the YAML layer refuses as a whole (alias bomb, nesting deeper than the stack). */
function hostileDocument(source: string, err: unknown): ConfigInvalid {
  const alias = err instanceof ReferenceError && /alias/i.test(err.message);
  return new ConfigInvalid(source, [
    {
      path: '(document)',
      found: alias ? 'aliases that multiply the document' : 'nesting deeper than the parser can follow',
      allowed: alias ? `aliases expanding to at most ${MAX_ALIAS_EXPANSION} nodes` : 'a plain mapping a few levels deep',
      message: alias ? 'YAML aliases expand too far (an anchor/alias bomb?)' : 'the YAML document is nested too deeply',
    },
  ]);
}

/** Parse and validate YAML text. Throws ConfigInvalid (YAML syntax errors included, with lines). */
export function parseConfigText(text: string, opts: ConfigLoadOptions = {}): SmartSearchConfig {
  const source = opts.sourceName ?? '<config>';
  // Cheap bound first (UTF-16 units ≤ UTF-8 bytes), the exact byte count only near the limit.
  if (text.length > MAX_CONFIG_BYTES || (text.length > MAX_CONFIG_BYTES / 4 && Buffer.byteLength(text) > MAX_CONFIG_BYTES))
    throw tooLarge(source, Buffer.byteLength(text));
  try {
    return parseBoundedText(text, source, opts);
  } catch (err) {
    if (err instanceof ReferenceError || err instanceof RangeError) throw hostileDocument(source, err);
    throw err;
  }
}

function parseBoundedText(text: string, source: string, opts: ConfigLoadOptions): SmartSearchConfig {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    const lines = text.split(/\r?\n/);
    throw new ConfigInvalid(
      source,
      doc.errors.map((e) => {
        const pos = lineCounter.linePos(e.pos[0]);
        return {
          path: '(yaml)',
          line: pos.line,
          column: pos.col,
          found: renderValue(lines[pos.line - 1]?.trim() ?? ''),
          allowed: 'valid YAML',
          message: `YAML syntax error: ${e.message.split('\n')[0]}`,
        };
      }),
    );
  }
  const raw: unknown = doc.toJS({ maxAliasCount: MAX_ALIAS_EXPANSION });
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigInvalid(source, [
      {
        path: '(root)',
        line: 1,
        column: 1,
        found: renderValue(raw ?? undefined),
        allowed: 'a mapping with search_space, workload, goal, sweep, adapters',
        message: 'the config must be a YAML mapping',
      },
    ]);
  }
  return validate(raw, opts, yamlLocator(doc, lineCounter));
}

/** Read, parse and validate a config file; `trace_path` is resolved against the file's directory. */
export function loadConfigFile(path: string, opts: { systemsDir?: string } = {}): SmartSearchConfig {
  let text: string;
  try {
    // Refuse a huge file before reading it into memory.
    const bytes = statSync(path).size;
    if (bytes > MAX_CONFIG_BYTES) throw tooLarge(path, bytes);
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof ConfigInvalid) throw err;
    const code = (err as { code?: string }).code;
    throw new InputError(
      code === 'ENOENT' ? `config file not found: ${resolve(path)}` : `cannot read config file ${path}: ${(err as Error).message}`,
    );
  }
  return parseConfigText(text, { sourceName: path, baseDir: dirname(resolve(path)), systemsDir: opts.systemsDir });
}
