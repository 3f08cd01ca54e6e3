// Error reporting: YAML path, line and column for every problem, all problems at once, exit code 2.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigInvalid } from '../../src/config/errors.js';
import { loadConfigFile } from '../../src/config/load.js';
import { InputError } from '../../src/errors.js';
import { issuesOf, loadText, SYSTEMS } from './fixtures.js';

const BROKEN = `search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h999
  backend: [vllm, tensorrt]
  gpu_budget: 8
  min_gpu_budget: 16
  planner_scaling_policy:
    - throughput_180_5
    - {enable_throughput_scaling: true}
workload:
  isl: 1024
  osl: 128
  concurrency: 0
goal:
  target: goodput
sweep:
  max_rounds: 0
  turbo: true
`;

describe('error reporting', () => {
  const issues = issuesOf(() => loadText(BROKEN));
  const byPath = Object.fromEntries(issues.map((i) => [i.path, i]));

  it('reports every problem at once, in source order', () => {
    expect(issues.map((i) => i.path)).toEqual([
      'search_space.hardware_sku',
      'search_space.backend[1]',
      'search_space.min_gpu_budget',
      'search_space.planner_scaling_policy[1].enable_load_scaling',
      'search_space.planner_scaling_policy[1].throughput_adjustment_interval_seconds',
      'search_space.planner_scaling_policy[1].load_adjustment_interval_seconds',
      'workload.num_request_ratio',
      'workload.concurrency',
      'goal.sla',
      'sweep.max_rounds',
      'sweep.turbo',
    ]);
    const lines = issues.map((i) => i.line ?? 0);
    expect([...lines].sort((a, b) => a - b)).toEqual(lines);
  });

  it('points each issue at its line and column', () => {
    expect(byPath['search_space.hardware_sku']).toMatchObject({ line: 3, column: 17, found: '"h999"' });
    expect(byPath['search_space.hardware_sku'].allowed).toBe('h100_sxm, h200_sxm');
    expect(byPath['search_space.backend[1]']).toMatchObject({ line: 4, column: 19, found: '"tensorrt"', allowed: 'vllm, sglang, trtllm' });
    expect(byPath['search_space.min_gpu_budget']).toMatchObject({ line: 6, column: 19, found: '16' });
    expect(byPath['workload.concurrency']).toMatchObject({ line: 13, column: 16, found: '0' });
    expect(byPath['sweep.max_rounds']).toMatchObject({ line: 17, column: 15 });
    // An unknown key points at the key itself.
    expect(byPath['sweep.turbo']).toMatchObject({ line: 18, column: 3, found: 'true' });
  });

  it('points a missing key at its parent mapping', () => {
    // num_request_ratio belongs in `workload`, whose first key is on line 11.
    expect(byPath['workload.num_request_ratio']).toMatchObject({ line: 11, column: 3, found: 'nothing' });
    expect(byPath['goal.sla']).toMatchObject({ line: 15, column: 3 });
    // A dict entry missing keys points at the dict (line 9).
    expect(byPath['search_space.planner_scaling_policy[1].enable_load_scaling'].line).toBe(9);
  });

  it('formats the message as <source>:<line>:<col>: <path>: <message> (found: …; allowed: …)', () => {
    let err: unknown;
    try {
      loadText(BROKEN);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigInvalid);
    expect(err).toBeInstanceOf(InputError);
    const e = err as ConfigInvalid;
    expect(e.exitCode).toBe(2);
    const lines = e.message.split('\n');
    expect(lines).toHaveLength(issues.length + 1);
    expect(lines).toContain(
      'test.yaml:4:19: search_space.backend[1]: not an allowed value (found: "tensorrt"; allowed: vllm, sglang, trtllm)',
    );
    expect(e.message).not.toMatch(/\n\s+at /); // no stack frames
  });

  it('reports YAML syntax errors with their line', () => {
    const bad = issuesOf(() => loadText('search_space:\n  model_name: x\n  backend: [vllm\nworkload: {}\n'));
    expect(bad.length).toBeGreaterThan(0);
    expect(bad[0].path).toBe('(yaml)');
    expect(bad[0].message).toMatch(/^YAML syntax error/);
    expect(bad[0].line).toBeGreaterThanOrEqual(3);
  });

  it('reports duplicate keys as YAML errors', () => {
    const bad = issuesOf(() => loadText('search_space:\n  model_name: x\n  model_name: y\n'));
    expect(bad[0]).toMatchObject({ path: '(yaml)', line: 3 });
  });

  it('rejects a document that is not a mapping', () => {
    expect(issuesOf(() => loadText('- a\n- b\n'))[0]).toMatchObject({ path: '(root)', message: 'the config must be a YAML mapping' });
    expect(issuesOf(() => loadText(''))[0].path).toBe('(root)');
  });

  it('a value of neither union kind says what both kinds are', () => {
    const text = 'search_space:\n  model_name: meta-llama/Llama-3.1-8B-Instruct\n  hardware_sku: h100_sxm\n  planner_fpm_sampling: [3]\nworkload: {isl: 1, osl: 1, num_request_ratio: 1, concurrency: 1}\n';
    const [issue] = issuesOf(() => loadText(text));
    expect(issue).toMatchObject({ path: 'search_space.planner_fpm_sampling[0]', line: 4, found: '3' });
    expect(issue.allowed).toBe('one of small, default, large, fine or a mapping');
  });

  it('a wrong type is reported once, not also as a failed length check', () => {
    const text = 'search_space: {model_name: meta-llama/Llama-3.1-8B-Instruct, hardware_sku: h100_sxm}\nworkload: {isl: 1, osl: 1, num_request_ratio: 1, concurrency: 1}\ngoal: {target: pareto, pareto_objectives: x}\n';
    const issues = issuesOf(() => loadText(text));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ path: 'goal.pareto_objectives', message: 'expected a list' });
  });

  it('empty goal:/sweep:/adapters: blocks mean defaults', () => {
    const c = loadText('search_space: {model_name: meta-llama/Llama-3.1-8B-Instruct, hardware_sku: h100_sxm}\nworkload: {isl: 1, osl: 1, num_request_ratio: 1, concurrency: 1}\ngoal:\nsweep:\nadapters:\n');
    expect(c.goal.target).toBe('throughput');
    expect(c.sweep.max_rounds).toBe(20);
    expect(c.adapters).toEqual({});
  });

  it('a missing config file is a clean InputError', () => {
    expect(() => loadConfigFile('/nonexistent/spica.yaml')).toThrow(/config file not found/);
  });
});

describe('quantization against the model', () => {
  it('rejects the expert-only mxfp4 on a dense model at its line, and accepts it for gpt-oss', () => {
    const cfg = (model: string): string => `search_space:\n  model_name: ${model}\n  hardware_sku: h100_sxm\n  quantization: mxfp4\nworkload: {isl: 8, osl: 8, concurrency: 1, num_request_ratio: 1}\n`;
    const [issue] = issuesOf(() => loadText(cfg('meta-llama/Llama-3.1-8B-Instruct')));
    expect(issue).toMatchObject({ path: 'search_space.quantization', line: 4, found: '"mxfp4"' });
    expect(issue.message).toContain('has no experts');
    expect(loadText(cfg('openai/gpt-oss-120b')).search_space.quantization).toBe('mxfp4');
  });
});

describe('trace_path', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spica-trace-'));
  writeFileSync(join(dir, 'trace.jsonl'), '{"timestamp":0,"input_length":10,"output_length":5,"hash_ids":[1]}\n');
  const text = (p: string) =>
    `search_space:\n  model_name: meta-llama/Llama-3.1-8B-Instruct\n  hardware_sku: h100_sxm\nworkload:\n  trace_path: ${p}\n`;

  it('is resolved against the config file directory', () => {
    writeFileSync(join(dir, 'c.yaml'), text('trace.jsonl'));
    const c = loadConfigFile(join(dir, 'c.yaml'), { systemsDir: SYSTEMS });
    expect(c.workload.trace_path).toBe(join(dir, 'trace.jsonl'));
  });

  it('is kept as given without a baseDir', () => {
    const c = loadText(text(join(dir, 'trace.jsonl')));
    expect(c.workload.trace_path).toBe(join(dir, 'trace.jsonl'));
  });

  it('must exist (error with its line)', () => {
    const issues = issuesOf(() => loadText(text('missing.jsonl'), { baseDir: dir }));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ path: 'workload.trace_path', line: 5, column: 15, found: '"missing.jsonl"' });
    expect(issues[0].message).toContain(join(dir, 'missing.jsonl'));
  });
});
