import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { devServerAddress, devServerConfigFromObject, loadDevServerConfig, startDevArgs } from '../../src/cli/temporal/dev-config.js';
import { defaultDevConfigPath, PROJECT_ROOT } from '../../src/cli/temporal/project-paths.js';
import { SWEEP_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.js';

describe('temporal-dev.yaml', () => {
  it('loads the repository file with the settings sweeps rely on', () => {
    const cfg = loadDevServerConfig(defaultDevConfigPath());
    expect(devServerAddress(cfg)).toBe('127.0.0.1:7233');
    expect(cfg.namespace).toBe('default');
    expect(cfg.db_filename).toBe(path.join(PROJECT_ROOT, '.spica', 'temporal.sqlite'));
    expect(cfg.retention_days).toBeGreaterThanOrEqual(30);
    // Every attribute the workflow upserts must be registered by the embedded server.
    expect(cfg.search_attributes).toMatchObject(SWEEP_SEARCH_ATTRIBUTES);
    expect(cfg.dynamic_config['frontend.enableUpdateWorkflowExecution']).toBe(true);
    expect(cfg.dynamic_config['frontend.enableUpdateWorkflowExecutionAsyncAccepted']).toBe(true);
  });

  it('turns settings into start-dev arguments', () => {
    const cfg = devServerConfigFromObject(
      {
        port: 7300,
        ui: { enabled: false },
        db_filename: 'state/t.sqlite',
        search_attributes: { SpicaModel: 'Keyword' },
        dynamic_config: { 'frontend.enableUpdateWorkflowExecution': true, 'limit.x': 40 },
        log_level: 'error',
      },
      '/base',
    );
    const args = startDevArgs(cfg);
    expect(args.slice(0, 2)).toEqual(['server', 'start-dev']);
    expect(args).toContain('--headless');
    expect(args.join(' ')).toContain('--port 7300');
    expect(args.join(' ')).toContain('--db-filename /base/state/t.sqlite');
    expect(args.join(' ')).toContain('--search-attribute SpicaModel=Keyword');
    expect(args.join(' ')).toContain('--dynamic-config-value frontend.enableUpdateWorkflowExecution=true');
    expect(args.join(' ')).toContain('--dynamic-config-value limit.x=40');
    expect(args.join(' ')).toContain('--log-level error');
  });

  it('defaults the UI port to port+1000 and keeps null db_filename in memory', () => {
    const cfg = devServerConfigFromObject({ port: 7400, db_filename: null }, '/base');
    const args = startDevArgs(cfg).join(' ');
    expect(args).toContain('--ui-port 8400');
    expect(args).not.toContain('--db-filename');
  });

  it('rejects unknown keys and bad values with the offending path', () => {
    expect(() => devServerConfigFromObject({ prot: 1 }, '/b')).toThrow(InputError);
    expect(() => devServerConfigFromObject({ port: 70000 }, '/b')).toThrow(/port/);
    expect(() => devServerConfigFromObject({ search_attributes: { SpicaModel: 'Keywrd' } }, '/b')).toThrow(
      /search_attributes\.SpicaModel/,
    );
  });
});
