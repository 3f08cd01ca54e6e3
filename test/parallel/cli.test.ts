// `spica configs` / `spica project` end to end through the dispatcher, on real catalog models and system
// files. Perf-DB coverage is simulated with a temporary coefficients directory (presence is what counts).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

let dir: string;
let coef: string;

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t), isTty: false }, out, err };
}

async function spica(...argv: string[]) {
  const h = io();
  const code = await main(argv, h.io);
  return { code, stdout: h.out.join(''), stderr: h.err.join('') };
}

function writeConfig(name: string, searchSpace: string): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `search_space:\n${searchSpace
      .trim()
      .split('\n')
      .map((l) => `  ${l}`)
      .join('\n')}\nworkload:\n  isl: 1000\n  osl: 200\n  concurrency: 16\n  num_request_ratio: 10\n`,
  );
  return path;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'spica-parallel-cli-'));
  coef = join(dir, 'coefficients');
  for (const b of ['vllm', 'sglang', 'trtllm']) {
    mkdirSync(join(coef, 'h200_sxm'), { recursive: true });
    writeFileSync(join(coef, 'h200_sxm', `${b}.json`), '{}');
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('spica configs', () => {
  it('--json lists the dense agg pool in dict form with the derived fields', async () => {
    const cfg = writeConfig('dense.yaml', `
model_name: meta-llama/Llama-3.1-8B-Instruct
hardware_sku: h200_sxm
gpu_budget: 4
min_gpu_budget: 2
deployment_mode: [agg]
backend: [vllm, trtllm]`);
    const r = await spica('configs', cfg, '--json', '--coefficients-dir', coef);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(['configs', 'pruned']);
    expect(doc.pruned).toEqual([]);
    // tp1 × 2..4, tp2 × 1..2, tp4 × 1 (g·r within [2, 4]).
    expect(doc.configs.map((c: { tp: number; replicas: number }) => `${c.tp}x${c.replicas}`)).toEqual(['1x2', '1x3', '1x4', '2x1', '2x2', '4x1']);
    const first = doc.configs[0];
    expect(Object.keys(first)).toEqual([
      'deployment_mode', 'tp', 'pp', 'attention_dp', 'moe_tp', 'moe_ep', 'replicas',
      'used_gpus', 'strategy', 'kv_capacity_tokens_per_rank', 'backends',
    ]);
    expect(first).toMatchObject({ deployment_mode: 'agg', used_gpus: 2, strategy: 'tp', backends: ['vllm', 'trtllm'] });
    expect(first.kv_capacity_tokens_per_rank).toBeGreaterThan(131072);
  });

  it('--all reports KV-infeasible shapes; a human table otherwise', async () => {
    // 70B in bf16 (~141 GB) cannot leave KV room on one 141 GB H200.
    const cfg = writeConfig('big.yaml', `
model_name: meta-llama/Llama-3.1-70B-Instruct
hardware_sku: h200_sxm
gpu_budget: 8
deployment_mode: [agg]
backend: [vllm]
quantization: bf16`);
    const r = await spica('configs', cfg, '--json', '--all', '--coefficients-dir', coef);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.configs.every((c: { tp: number }) => c.tp >= 2)).toBe(true);
    expect(doc.pruned).toMatchObject([{ deployment_mode: 'agg', role: 'agg', backend: 'vllm', tp: 1, reason: 'kv_capacity' }]);
    const human = await spica('configs', cfg, '--all', '--coefficients-dir', coef);
    expect(human.stdout).toMatch(/^agg: \d+ configs \(gpu_budget 8; backends vllm\)/);
    expect(human.stdout).toMatch(/config\s+gpus\s+strategy\s+kv_tokens\/rank\s+backends/);
    expect(human.stdout).toMatch(/agg pruned:[\s\S]*kv_capacity/);
  });

  it('filters by --mode and --backend; disagg drops trtllm with a warning', async () => {
    const cfg = writeConfig('moe.yaml', `
model_name: Qwen/Qwen3-30B-A3B
hardware_sku: h200_sxm
gpu_budget: 4
backend: [vllm, sglang, trtllm]`);
    const r = await spica('configs', cfg, '--json', '--mode', 'disagg', '--backend', 'sglang', '--coefficients-dir', coef);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/backend trtllm dropped/);
    const doc = JSON.parse(r.stdout);
    expect(doc.configs.length).toBeGreaterThan(0);
    for (const c of doc.configs) {
      expect(c.deployment_mode).toBe('disagg');
      expect(c.backends).toContain('sglang');
      expect(c.used_gpus).toBeLessThanOrEqual(4);
    }
    expect((await spica('configs', cfg, '--mode', 'both', '--coefficients-dir', coef)).code).toBe(2);
  });

  it('fails with NoPerfDatabase (exit 2) when no listed backend is calibrated', async () => {
    const cfg = writeConfig('noperf.yaml', `
model_name: Qwen/Qwen3-8B
hardware_sku: h100_sxm
backend: [vllm]`);
    const r = await spica('configs', cfg, '--coefficients-dir', coef);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/NoPerfDatabase: .*'vllm' on 'h100_sxm'/);
  });

  it('rejects a pin legal for no backend before any replay (exit 2)', async () => {
    const cfg = writeConfig('pin.yaml', `
model_name: Qwen/Qwen3-30B-A3B
hardware_sku: h200_sxm
deployment_mode: [agg]
backend: [trtllm]
parallel_configs:
  - {tp: 2, attention_dp: 2, moe_tp: 4}`);
    const r = await spica('configs', cfg, '--coefficients-dir', coef);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/parallel_configs\[0\] \{tp: 2, pp: 1, attention_dp: 2, moe_tp: 4, moe_ep: 1, replicas: 1\} is legal for no backend/);
    expect(r.stderr).toMatch(/trtllm: backend_filter:trtllm/);
  });
});

describe('spica project', () => {
  it('--json prints the chosen config and the spica_projection record', async () => {
    const cfg = writeConfig('proj.yaml', `
model_name: Qwen/Qwen3-30B-A3B
hardware_sku: h200_sxm
gpu_budget: 8
deployment_mode: [agg]
backend: [vllm, sglang]`);
    const req = JSON.stringify({ agg_num_gpus_per_engine_target: 4, agg_attention_mode: 'tp', agg_ffn_mode: 'ep', used_gpu_ratio: 1 });
    const r = await spica('project', cfg, '--backend', 'vllm', '--request', req, '--json', '--coefficients-dir', coef);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(['parallel_config', 'spica_projection']);
    expect(Object.keys(doc.spica_projection)).toEqual(['requested', 'actual', 'distance', 'mode_projected', 'parallel_config']);
    expect(doc.parallel_config).toEqual({ tp: 4, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 4, replicas: 2 });
    expect(doc.spica_projection).toMatchObject({ distance: 0, mode_projected: false, parallel_config: doc.parallel_config });
    expect(doc.spica_projection.actual).toEqual(doc.spica_projection.requested);
  });

  it('requires --backend when ambiguous and rejects unknown feature names', async () => {
    const cfg = join(dir, 'proj.yaml');
    const noBackend = await spica('project', cfg, '--coefficients-dir', coef);
    expect(noBackend.code).toBe(2);
    expect(noBackend.stderr).toMatch(/--backend is required/);
    const unknown = await spica('project', cfg, '--backend', 'vllm', '--request', '{"tp":4}', '--coefficients-dir', coef);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown agg latent feature 'tp'/);
    const bad = await spica('project', cfg, '--backend', 'vllm', '--request', '[1]', '--coefficients-dir', coef);
    expect(bad.stderr).toMatch(/--request must be a JSON object/);
  });

  it('human output shows requested vs actual and the mode fallback', async () => {
    const cfg = join(dir, 'proj.yaml');
    const r = await spica('project', cfg, '--backend', 'sglang', '--request', '{"agg_ffn_mode":"tp","agg_num_gpus_per_engine_target":4}', '--coefficients-dir', coef);
    expect(r.code).toBe(0);
    // sglang runs MoE TP (no wide-EP for this model), so the requested size and mode are both met.
    expect(r.stdout).toMatch(/agg_num_gpus_per_engine_target\s+4\s+4/);
    expect(r.stdout).toMatch(/mode_projected\s+false/);
    expect(r.stdout).toMatch(/parallel_config\s+\d+ × \{tp: 4, pp: 1, attention_dp: 1, moe_tp: 4, moe_ep: 1\}/);
  });
});
