// The shipped examples validate against the repository's systems/, and the example traces are
// well-formed, reproducible Mooncake files with prefix sharing: bursty arrivals (small) and a load wave.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configFromObject, loadConfigFile } from '../../src/config/load.js';
import { workloadShape } from '../../src/config/schema.js';
import { planBranchDimensions } from '../../src/search/dimensions.js';
import type { Row } from '../../examples/traces/mooncake-requests.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));

describe('examples', () => {
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml'));

  it('has the three required configs', () => {
    expect(files).toEqual(expect.arrayContaining(['dense-agg-throughput.yaml', 'moe-disagg-pareto.yaml', 'trace-planner-goodput.yaml']));
  });

  it.each(files)('%s validates and plans at least one branch', (f) => {
    const c = loadConfigFile(join(EXAMPLES, f));
    const { branches } = planBranchDimensions(c);
    expect(branches.length).toBeGreaterThan(0);
    // Re-validating the parsed config (as the workflow does with its JSON input) is a no-op.
    expect(configFromObject(JSON.parse(JSON.stringify(c)))).toEqual(c);
  });

  it('each example is the shape its name says', () => {
    const dense = loadConfigFile(join(EXAMPLES, 'dense-agg-throughput.yaml'));
    expect([dense.search_space.model_name, dense.search_space.hardware_sku, dense.goal.target, workloadShape(dense.workload)]).toEqual([
      'meta-llama/Llama-3.1-8B-Instruct',
      'h100_sxm',
      'throughput',
      'concurrency',
    ]);
    const moe = loadConfigFile(join(EXAMPLES, 'moe-disagg-pareto.yaml'));
    expect(moe.search_space.deployment_mode).toEqual(['disagg']);
    expect(moe.search_space.backend).toEqual(['vllm', 'sglang']);
    expect(Array.isArray(moe.workload.kv_load_ratio)).toBe(true);
    const trace = loadConfigFile(join(EXAMPLES, 'trace-planner-goodput.yaml'));
    expect(trace.workload.trace_path).toBe(join(EXAMPLES, 'traces', 'mooncake-wave.jsonl'));
    expect(trace.goal.target).toBe('goodput_per_gpu');
    const [agg] = planBranchDimensions(trace).branches;
    expect(agg.scaling_policies.length).toBeGreaterThan(1);
  });
});

/** A committed example trace: its text, its rows, and a test that its generator reproduces it byte for byte. */
function exampleTrace(name: string, generator: string): { text: string; rows: Row[]; itIsReproducedByItsGenerator: () => void } {
  const text = readFileSync(join(EXAMPLES, 'traces', name), 'utf8');
  const rows = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Row);
  const itIsReproducedByItsGenerator = () =>
    it('is reproduced byte for byte by its generator', () => {
      const out = join(mkdtempSync(join(tmpdir(), 'spica-trace-')), 'trace.jsonl');
      execFileSync(process.execPath, ['--import', 'tsx', join(EXAMPLES, 'traces', generator), out], { stdio: 'pipe' });
      expect(readFileSync(out, 'utf8')).toBe(text);
    });
  return { text, rows, itIsReproducedByItsGenerator };
}

describe('examples/traces/mooncake-small.jsonl', () => {
  const { rows, itIsReproducedByItsGenerator } = exampleTrace('mooncake-small.jsonl', 'make-mooncake-small.ts');

  it('is 400 well-formed Mooncake rows', () => {
    expect(rows).toHaveLength(400);
    for (const r of rows) {
      expect(Number.isInteger(r.timestamp)).toBe(true);
      expect(r.hash_ids.length).toBeGreaterThan(0);
      expect(r.input_length).toBeLessThanOrEqual(r.hash_ids.length * 512);
      expect(r.input_length).toBeGreaterThan((r.hash_ids.length - 1) * 512);
      expect(r.output_length).toBeGreaterThan(0);
    }
    expect(rows[0].timestamp).toBe(0);
    for (let i = 1; i < rows.length; i++) expect(rows[i].timestamp).toBeGreaterThanOrEqual(rows[i - 1].timestamp);
  });

  it('shares prefixes and arrives in bursts', () => {
    const seen = new Set<number>();
    let sharing = 0;
    for (const r of rows) {
      if (seen.has(r.hash_ids[0])) sharing++;
      r.hash_ids.forEach((h) => seen.add(h));
    }
    expect(sharing / rows.length).toBeGreaterThan(0.5);
    const gaps = rows.slice(1).map((r, i) => r.timestamp - rows[i].timestamp);
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    const sd = Math.sqrt(gaps.reduce((a, g) => a + (g - mean) ** 2, 0) / gaps.length);
    expect(sd / mean).toBeGreaterThan(1.5); // Poisson would be ~1
  });

  itIsReproducedByItsGenerator();
});

describe('examples/traces/mooncake-wave.jsonl', () => {
  const { rows, itIsReproducedByItsGenerator } = exampleTrace('mooncake-wave.jsonl', 'make-mooncake-wave.ts');

  it('is 20 minutes of well-formed Mooncake rows in time order', () => {
    expect(rows.length).toBeGreaterThan(5000);
    expect(rows[rows.length - 1].timestamp).toBeGreaterThan(19 * 60_000);
    expect(rows[rows.length - 1].timestamp).toBeLessThan(20 * 60_000);
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      expect(r.input_length).toBeLessThanOrEqual(r.hash_ids.length * 512);
      expect(r.input_length).toBeGreaterThan((r.hash_ids.length - 1) * 512);
      if (i > 0) expect(r.timestamp).toBeGreaterThanOrEqual(rows[i - 1].timestamp);
    }
  });

  it('swings as a wave: two busy peaks, quiet troughs', () => {
    const perMinute = new Array<number>(20).fill(0);
    for (const r of rows) perMinute[Math.floor(r.timestamp / 60_000)]++;
    // Peaks at minutes 5 and 15, troughs at 0, 10 and 19.
    expect(Math.min(perMinute[4], perMinute[5], perMinute[14], perMinute[15])).toBeGreaterThan(8 * Math.max(perMinute[0], perMinute[10], perMinute[19]));
  });

  itIsReproducedByItsGenerator();
});
