// `spica validate` and `spica explain` through the dispatcher, with a capturing io.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CommandIo } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';
import { loadCoefficients, replayCorrections } from '../../src/hardware/perf/coefficients.js';
import { SYSTEMS } from './fixtures.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));

async function spica(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CommandIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), isTty: false };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

const dir = mkdtempSync(join(tmpdir(), 'spica-cli-'));
const BAD = join(dir, 'bad.yaml');
writeFileSync(
  BAD,
  `search_space:\n  model_name: meta-llama/Llama-3.1-8B-Instruct\n  hardware_sku: h100_sxm\n  backend: [vllm, tgi]\nworkload:\n  isl: 10\n  osl: 10\n  concurrency: 2\n  num_request_ratio: 1\ngoal:\n  target: goodput\n`,
);
const ONLY_TRT_DISAGG = join(dir, 'trt.yaml');
writeFileSync(
  ONLY_TRT_DISAGG,
  `search_space:\n  model_name: meta-llama/Llama-3.1-8B-Instruct\n  hardware_sku: h100_sxm\n  deployment_mode: [disagg]\n  backend: [trtllm]\nworkload: {isl: 10, osl: 10, concurrency: 2, num_request_ratio: 1}\n`,
);

describe('spica validate', () => {
  it('prints a summary and exits 0 for a valid config', async () => {
    const r = await spica('validate', join(EXAMPLES, 'dense-agg-throughput.yaml'));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('valid');
    expect(r.stdout).toContain('meta-llama/Llama-3.1-8B-Instruct');
    expect(r.stdout).toContain('h100_sxm, gpu_budget 8');
    expect(r.stdout).toMatch(/workload: +synthetic concurrency 16/);
    expect(r.stdout).toMatch(/agg: \d+ searched dimensions/);
    expect(r.stderr).toBe('');
  });

  it('lists every error on stderr with lines and exits 2', async () => {
    const r = await spica('validate', BAD, '--systems-dir', SYSTEMS);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${BAD}:4:19: search_space.backend[1]: not an allowed value (found: "tgi"; allowed: vllm, sglang, trtllm)`);
    expect(r.stderr).toContain(`${BAD}:11:3: goal.sla: an SLA is required for goodput`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('an unknown SKU lists the available ones', async () => {
    const f = join(dir, 'sku.yaml');
    writeFileSync(f, `search_space: {model_name: meta-llama/Llama-3.1-8B-Instruct, hardware_sku: tpu_v5}\nworkload: {isl: 1, osl: 1, concurrency: 1, num_request_ratio: 1}\n`);
    const r = await spica('validate', f, '--systems-dir', SYSTEMS);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown hardware_sku 'tpu_v5'");
    expect(r.stderr).toContain('allowed: h100_sxm, h200_sxm');
  });

  it('no viable deployment mode is exit 2', async () => {
    const r = await spica('validate', ONLY_TRT_DISAGG, '--systems-dir', SYSTEMS);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no viable deployment_mode/);
  });

  it('usage errors are exit 2', async () => {
    expect((await spica('validate')).code).toBe(2);
    expect((await spica('validate', 'a.yaml', 'b.yaml')).code).toBe(2);
    expect((await spica('validate', '--bogus', BAD)).code).toBe(2);
    expect((await spica('validate', join(dir, 'missing.yaml'))).stderr).toMatch(/config file not found/);
  });
});

describe('spica explain', () => {
  it('--json prints exactly one JSON document of the agreed shape', async () => {
    const r = await spica('explain', join(EXAMPLES, 'trace-planner-goodput.yaml'), '--json');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc).sort()).toEqual(['branches', 'warnings']);
    const [b] = doc.branches;
    expect(b.deployment_mode).toBe('agg');
    expect(b.backends).toEqual(['vllm']);
    for (const d of b.dimensions) expect(Object.keys(d)).toEqual(expect.arrayContaining(['name', 'kind', 'values']));
    expect(b.dimensions.map((d: { name: string }) => d.name)).toContain('adapter::dynamo.planner::scaling_policy');
    expect(b.pinned.model_name).toBe('nvidia/Llama-3.1-70B-Instruct-FP8');
    expect(b.dropped.every((d: { name: string; rule: string }) => d.name && d.rule)).toBe(true);
    expect(b.load_predictor.reason).toBe('forecast_loss_sub_sweep');
    expect(b.load_predictor.candidates).toContainEqual({ label: 'kalman_default_log1p', load_predictor: 'kalman', load_predictor_log1p: true, kalman_q_level: 1, kalman_q_trend: 0.1, kalman_r: 10, kalman_min_points: 5 });
    expect(b.composites.scaling_policy.throughput_180_5).toEqual({
      enable_throughput_scaling: true,
      enable_load_scaling: false,
      throughput_adjustment_interval_seconds: 180,
      load_adjustment_interval_seconds: 5,
    });
  });

  it('--json carries skip warnings', async () => {
    const f = join(dir, 'mixed.yaml');
    writeFileSync(f, `search_space: {model_name: meta-llama/Llama-3.1-8B-Instruct, hardware_sku: h100_sxm, backend: [trtllm]}\nworkload: {isl: 1, osl: 1, concurrency: 1, num_request_ratio: 1}\n`);
    // The repository's systems/: explain runs the sweep's preflight, which needs real system specs.
    const r = await spica('explain', f, '--json');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.branches.map((b: { deployment_mode: string }) => b.deployment_mode)).toEqual(['agg']);
    expect(doc.warnings[0]).toMatch(/disagg' skipped/);
  });

  it('shows the KV-cache dtype each backend runs when the config leaves it unset', async () => {
    const f = join(dir, 'trt-fp8.yaml');
    const body = (extra: string) =>
      `search_space: {model_name: meta-llama/Llama-3.1-8B-Instruct, hardware_sku: h100_sxm, deployment_mode: [agg], backend: [trtllm, vllm], quantization: fp8${extra}}\nworkload: {isl: 128, osl: 16, concurrency: 4, num_request_ratio: 1}\n`;
    writeFileSync(f, body(''));
    const text = await spica('explain', f);
    expect(text.code).toBe(0);
    // TRT-LLM on an FP8 checkpoint inherits its FP8 KV cache; vLLM stores the model's dtype.
    expect(text.stdout).toContain("kv_cache_dtype (unset: each backend's default for this checkpoint) = trtllm fp8, vllm bf16");
    const doc = JSON.parse((await spica('explain', f, '--json')).stdout);
    expect(doc.branches[0].engine_defaults).toEqual({ kv_cache_dtype: { trtllm: 'fp8', vllm: 'bf16' } });
    writeFileSync(f, body(', kv_cache_dtype: bf16'));
    const pinned = JSON.parse((await spica('explain', f, '--json')).stdout);
    expect(pinned.branches[0].engine_defaults).toEqual({});
  });

  it('shows the fitted replay corrections each backend runs with: pass scale, prefill factor, admission lag, frontend latency', async () => {
    const f = join(dir, 'cal.yaml');
    writeFileSync(f, `search_space: {model_name: deepseek-ai/DeepSeek-R1, hardware_sku: b200_sxm, deployment_mode: [agg], backend: [sglang, trtllm], quantization: fp8}\nworkload: {isl: 1024, osl: 128, concurrency: 64, num_request_ratio: 1}\n`);
    const doc = JSON.parse((await spica('explain', f, '--json')).stdout);
    const cal = doc.branches[0].replay_calibration;
    for (const be of ['sglang', 'trtllm'] as const) {
      const c = replayCorrections(loadCoefficients('b200_sxm', be).file.overhead.replay!, 'agg', 'mla-moe');
      expect(cal[be]).toEqual({ pass_scale: c.passScale, prefill_scale: c.prefillScale, admission_lag_passes: c.admissionLagPasses, frontend_ms: c.admissionMs });
    }
    const text = (await spica('explain', f)).stdout;
    expect(text).toContain('replay calibration (systems/coefficients, fitted):');
    expect(text).toMatch(/sglang: pass time x[\d.]+, prefill x[\d.]+, admission lag \d+ passes, frontend [\d.]+ ms/);
  });

  it('text output shows searched, pinned, dropped, expansions and predictors', async () => {
    const r = await spica('explain', join(EXAMPLES, 'dense-agg-throughput.yaml'));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('branch agg (backends: vllm)');
    expect(r.stdout).toMatch(/searched \(\d+\):/);
    expect(r.stdout).toContain('agg_max_num_seqs  discrete, log scale  {256, 512}');
    expect(r.stdout).toContain('adapter::dynamo.planner::fpm_sampling: no kept planner_scaling_policy enables scaling');
    expect(r.stdout).toContain('scaling_policy disabled ->');
    expect(r.stdout).toContain('load predictor: no_throughput_scaling_candidate');
  });

  it('invalid config is exit 2 with errors on stderr', async () => {
    const r = await spica('explain', BAD, '--json', '--systems-dir', SYSTEMS);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('search_space.backend[1]');
  });
});
