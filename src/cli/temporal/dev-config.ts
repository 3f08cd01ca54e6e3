// temporal-dev.yaml: settings of the embedded `temporal server start-dev`. The zod schema is the
// single source of truth for the type.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { InputError } from '../../errors.js';
import { defaultDevConfigPath } from './project-paths.js';

const port = z.number().int().min(1).max(65535);

export const SearchAttributeKind = z.enum(['Text', 'Keyword', 'Int', 'Double', 'Bool', 'Datetime', 'KeywordList']);
export type SearchAttributeKind = z.infer<typeof SearchAttributeKind>;

export const DevServerConfigSchema = z
  .object({
    ip: z.string().min(1).default('127.0.0.1'),
    port: port.default(7233),
    ui: z
      .object({ enabled: z.boolean().default(true), port: port.optional() })
      .strict()
      .default({ enabled: true }),
    namespace: z.string().min(1).default('default'),
    /** SQLite file (relative to the YAML file); null = in-memory. */
    db_filename: z.string().min(1).nullable().default(null),
    retention_days: z.number().positive().max(3650).default(30),
    search_attributes: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/), SearchAttributeKind).default({}),
    dynamic_config: z.record(z.string().min(1), z.union([z.boolean(), z.number(), z.string()])).default({}),
    log_level: z.enum(['debug', 'info', 'warn', 'error', 'never']).default('warn'),
    startup_timeout_seconds: z.number().positive().default(60),
  })
  .strict();

export type DevServerConfig = z.infer<typeof DevServerConfigSchema>;

/** Validates a parsed YAML object; `baseDir` anchors a relative `db_filename`. */
export function devServerConfigFromObject(obj: unknown, baseDir: string, sourceName = 'temporal-dev.yaml'): DevServerConfig {
  const parsed = DevServerConfigSchema.safeParse(obj ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`).join('\n');
    throw new InputError(`${sourceName} is invalid:\n${issues}`);
  }
  const cfg = parsed.data;
  return { ...cfg, db_filename: cfg.db_filename === null ? null : path.resolve(baseDir, cfg.db_filename) };
}

export function loadDevServerConfig(file: string = defaultDevConfigPath()): DevServerConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(`cannot read ${file}: ${(err as Error).message}`);
  }
  let obj: unknown;
  try {
    obj = parseYaml(text);
  } catch (err) {
    throw new InputError(`${file} is not valid YAML: ${(err as Error).message}`);
  }
  return devServerConfigFromObject(obj, path.dirname(path.resolve(file)), file);
}

/** `host:port` clients use to reach the server. */
export function devServerAddress(cfg: Pick<DevServerConfig, 'ip' | 'port'>): string {
  const host = cfg.ip === '0.0.0.0' ? '127.0.0.1' : cfg.ip;
  return `${host}:${cfg.port}`;
}

/** Arguments after `temporal` for `server start-dev`. */
export function startDevArgs(cfg: DevServerConfig): string[] {
  const args = ['server', 'start-dev', '--ip', cfg.ip, '--port', String(cfg.port), '--namespace', cfg.namespace];
  if (cfg.ui.enabled) args.push('--ui-port', String(cfg.ui.port ?? cfg.port + 1000));
  else args.push('--headless');
  if (cfg.db_filename) args.push('--db-filename', cfg.db_filename);
  args.push('--log-level', cfg.log_level);
  for (const [name, kind] of Object.entries(cfg.search_attributes)) args.push('--search-attribute', `${name}=${kind}`);
  for (const [key, value] of Object.entries(cfg.dynamic_config)) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  return args;
}
