// Hostile YAML corpus (issue 16 §4): alias/anchor bombs, huge documents, deep nesting and error
// floods end in exit 2 with one clear error (at most 50 problems printed, then a count), never a
// stack trace, and in bounded memory: the CLI runs with a 256 MB heap, which the unbounded
// handling exceeded by far (a 6 MB flood took 1.4 GB). The plan activity fails them non-retryably.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { plan } from '../../activities/plan.js';
import { ConfigInvalid, MAX_REPORTED_ISSUES } from '../../src/config/errors.js';
import { MAX_CONFIG_BYTES, parseConfigText } from '../../src/config/load.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HOSTILE = join(ROOT, 'test/config/hostile');
const EXAMPLE = readFileSync(join(ROOT, 'examples/dense-agg-throughput.yaml'), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'spica-hostile-'));

/** The example with `agg_max_num_seqs` replaced by `n` values none of which is allowed. */
function flood(n: number): string {
  const items = Array.from({ length: n }, (_, i) => `    - b${i}\n`).join('');
  return EXAMPLE.replace('  agg_max_num_seqs: [256, 512]\n', `  agg_max_num_seqs:\n${items}`);
}

const corpus: Record<string, string> = {
  'alias-bomb': readFileSync(join(HOSTILE, 'alias-bomb.yaml'), 'utf8'),
  // Wide instead of deep: one anchor of 1,000 aliases to a 1,000-element list.
  'anchor-fanout': `a: &a [${Array(1000).fill('x').join(', ')}]\nb: &b [${Array(1000).fill('*a').join(', ')}]\nsearch_space: *b\n`,
  'huge-6mb-list': flood(480_000), // ~6 MB: refused by size before parsing
  'huge-comment': `${EXAMPLE}#${'x'.repeat(MAX_CONFIG_BYTES)}\n`,
  'deep-nesting': `search_space: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`,
  'error-flood': flood(80_000), // just under the size limit: 80,000 problems
};
const files = Object.fromEntries(
  Object.entries(corpus).map(([name, text]) => {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, text);
    return [name, file];
  }),
);

/** Asynchronous: a child that parses a hostile file for seconds must not block this worker's event loop. */
function validateCli(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--max-old-space-size=256', join(ROOT, 'bin/spica.js'), 'validate', file],
      { encoding: 'utf8', timeout: 120_000, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

describe('hostile YAML', () => {
  it.each(Object.keys(corpus))('%s: spica validate exits 2 with a clear error, no stack trace, in a 256 MB heap', async (name) => {
    const r = await validateCli(files[name]);
    expect(r.code, r.stderr.slice(0, 2000)).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^spica validate: invalid config /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr.split('\n').length).toBeLessThanOrEqual(MAX_REPORTED_ISSUES + 3);
  });

  it('names the cause: alias expansion, size, nesting', async () => {
    expect((await validateCli(files['alias-bomb'])).stderr).toContain('YAML aliases expand too far');
    expect((await validateCli(files['anchor-fanout'])).stderr).toContain('YAML aliases expand too far');
    const huge = (await validateCli(files['huge-6mb-list'])).stderr;
    expect(huge).toContain('the config is too large');
    expect(huge).toMatch(/found: 6\.\d MiB; allowed: at most 1 MiB/);
    expect((await validateCli(files['deep-nesting'])).stderr).toMatch(/nested too deeply|Maximum call stack/);
  });

  it('an error flood prints the first 50 problems in source order, then how many more', async () => {
    const { stderr } = await validateCli(files['error-flood']);
    const lines = stderr.trimEnd().split('\n');
    expect(lines[0]).toContain('(80000 problems)');
    expect(lines.slice(1, -1)).toHaveLength(MAX_REPORTED_ISSUES);
    expect(lines[1]).toContain('search_space.agg_max_num_seqs[0]: not an allowed value (found: "b0"');
    expect(lines[MAX_REPORTED_ISSUES]).toContain(`search_space.agg_max_num_seqs[${MAX_REPORTED_ISSUES - 1}]`);
    expect(lines.at(-1)).toBe(`… and ${80_000 - MAX_REPORTED_ISSUES} more`);
  });

  it('ConfigInvalid keeps the first 50 problems and the total', () => {
    let err: unknown;
    try {
      parseConfigText(flood(2_000), { sourceName: 'flood.yaml' }); // in-process: small enough not to stall the worker
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigInvalid);
    expect((err as ConfigInvalid).issues).toHaveLength(MAX_REPORTED_ISSUES);
    expect((err as ConfigInvalid).total).toBe(2_000);
  });

  const throughPlan: Record<string, string> = { 'alias-bomb': corpus['alias-bomb'], 'huge-6mb-list': corpus['huge-6mb-list'], 'error-flood': flood(2_000) };
  it.each(Object.keys(throughPlan))('%s through the plan activity: a non-retryable ConfigInvalid failure', async (name) => {
    const err = await plan({ configYaml: throughPlan[name], sourceName: `${name}.yaml` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    const f = err as ApplicationFailure;
    expect(f.nonRetryable).toBe(true);
    expect(f.type).toBe('ConfigInvalid');
    expect(f.message).toMatch(new RegExp(`^invalid config ${name}\\.yaml`));
    expect(JSON.stringify(f.details).length).toBeLessThan(64 * 1024); // the failure payload stays small
  });
});
