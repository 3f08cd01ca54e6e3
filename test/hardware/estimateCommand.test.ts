import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CommandIo } from '../../src/cli/command.js';
import { resolveModel } from '../../src/model/catalog.js';
import { weightBytesPerGpu, weightLayout, WEIGHT_BYTES } from '../../src/model/weights.js';
import { loadSystem } from '../../src/hardware/systems.js';
import { replayRow } from '../../src/calibration/evaluate.js';
import { llama8bH100Row } from '../support/e2e-row.js';

function capture(): CommandIo & { out: string; err: string } {
  const io = { out: '', err: '', isTty: false, stdout: (t: string) => void (io.out += t), stderr: (t: string) => void (io.err += t) };
  return io;
}

const KEYS = ['weights_bytes_per_gpu', 'kv_bytes_per_token', 'kv_capacity_tokens_per_rank', 'max_concurrency', 'prefill_ms', 'decode_step_ms', 'ttft_ms', 'tpot_ms'];

describe('spica estimate', () => {
  it('--json prints one flat object with the estimate figures and the inputs', async () => {
    const io = capture();
    const code = await main(['estimate', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--sku', 'h100_sxm', '--tp', '1', '--batch', '8', '--json'], io);
    expect(code).toBe(0);
    const obj = JSON.parse(io.out) as Record<string, unknown>;
    for (const k of KEYS) expect(typeof obj[k], k).toBe('number');
    expect(Object.values(obj).every((v) => typeof v !== 'object')).toBe(true);
    expect(obj).toMatchObject({ model: 'meta-llama/Llama-3.1-8B-Instruct', sku: 'h100_sxm', backend: 'vllm', quant: 'bf16', kv_dtype: 'bf16', tp: 1, isl: 1024, osl: 1024, batch: 8 });
    expect(obj.kv_bytes_per_token).toBe(131072);
    expect(obj.tpot_ms as number).toBeGreaterThan(0);
    expect(obj.ttft_ms as number).toBeGreaterThan(obj.tpot_ms as number);
    expect(obj.prefill_ms as number).toBeGreaterThan(obj.decode_step_ms as number);
  });

  it('ttft_ms / tpot_ms are the calibrated user-path replay of the closed loop — the accuracy harness\'s figure for the same benchmark', async () => {
    const row = llama8bH100Row('est');
    const io = capture();
    expect(await main(['estimate', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--sku', 'h100_sxm', '--tp', '1', '--isl', '1024', '--osl', '64', '--batch', '8', '--json'], io)).toBe(0);
    const obj = JSON.parse(io.out) as Record<string, number | string>;
    const harness = replayRow(row);
    expect(obj.latency_source).toBe('replay');
    expect(obj.ttft_ms).toBe(harness.ttftMs);
    expect(obj.tpot_ms).toBe(harness.tpotMs);
    expect(typeof obj.steady_state_ttft_ms).toBe('number');
    // A batch beyond what the KV cache holds is not replayed: the steady-state formula answers.
    const big = capture();
    expect(await main(['estimate', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--sku', 'h100_sxm', '--tp', '1', '--batch', '4000', '--json'], big)).toBe(0);
    const b = JSON.parse(big.out) as Record<string, number | string>;
    expect(b.latency_source).toBe('steady_state');
    expect(b.ttft_ms).toBe(b.steady_state_ttft_ms);
  });

  it('prints an aligned table by default', async () => {
    const io = capture();
    expect(await main(['estimate', '--model', 'Qwen/Qwen3-32B', '--sku', 'h200_sxm', '--backend', 'trtllm', '--quant', 'fp8', '--tp', '2'], io)).toBe(0);
    const rows = io.out.trim().split('\n').filter((l) => KEYS.some((k) => l.startsWith(k)));
    expect(rows).toHaveLength(KEYS.length);
    const valueColumn = new Set(rows.map((l) => l.search(/\s\S+(\s\(.*\))?$/)));
    expect(valueColumn.size).toBe(1);
  });

  it('exits 2 with the list for an unknown model or SKU, and for a SKU without coefficients', async () => {
    let io = capture();
    expect(await main(['estimate', '--model', 'no-such-model', '--sku', 'h100_sxm', '--tp', '1'], io)).toBe(2);
    expect(io.err).toContain('meta-llama/Llama-3.1-8B-Instruct');
    io = capture();
    expect(await main(['estimate', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--sku', 'tpu_v9', '--tp', '1'], io)).toBe(2);
    expect(io.err).toContain('h100_sxm');
    io = capture();
    expect(await main(['estimate', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--sku', 'gb200', '--tp', '1'], io)).toBe(2);
    expect(io.err).toContain('NoPerfDatabase');
    io = capture();
    expect(await main(['estimate', '--model', 'deepseek-ai/DeepSeek-R1', '--sku', 'h200_sxm', '--tp', '8', '--moe-tp', '2', '--moe-ep', '2'], io)).toBe(2);
  });

  it('--quant fp8 on a block-scaled checkpoint uses its block-scaled kernels (as the e2e rows do)', async () => {
    const run = async (model: string, quant: string): Promise<Record<string, number | string>> => {
      const io = capture();
      expect(await main(['estimate', '--model', model, '--sku', 'h200_sxm', '--backend', 'vllm', '--quant', quant, '--tp', '8', '--batch', '16', '--json'], io)).toBe(0);
      return JSON.parse(io.out) as Record<string, number | string>;
    };
    const coarse = await run('deepseek-ai/DeepSeek-R1', 'fp8');
    const block = await run('deepseek-ai/DeepSeek-R1', 'fp8_block');
    expect(coarse.quant).toBe('fp8_block');
    expect(coarse).toEqual(block);
    // A per-tensor checkpoint keeps per-tensor FP8: the rule only maps onto the checkpoint's own scaling.
    const llama = await run('meta-llama/Llama-3.1-70B', 'fp8');
    expect(llama.quant).toBe('fp8');
  });

  describe('gpt-oss (MXFP4 experts) on Hopper', () => {
    const estimate = async (args: string[]): Promise<Record<string, number | string>> => {
      const io = capture();
      expect(await main(['estimate', '--model', 'openai/gpt-oss-120b', ...args, '--json'], io), io.err).toBe(0);
      return JSON.parse(io.out) as Record<string, number | string>;
    };

    it('estimates on h100 at tp 2 for every backend, within physics', async () => {
      const m = resolveModel('openai/gpt-oss-120b');
      const h100 = loadSystem('h100_sxm');
      const s = { tp: 2, pp: 1, attention_dp: 1, moe_tp: 2, moe_ep: 1 };
      const total = weightBytesPerGpu(m, s, weightLayout(m, 'mxfp4'));
      const expertsPerGpu = (36 * 128 * 3 * 2880 * 2880 * WEIGHT_BYTES.mxfp4) / 2;
      const embedding = (201088 * 2880 * 2) / 2;
      // A batch-1 decode step streams every non-expert weight but the embedding table, and 4 of 128 experts.
      const floorMs = ((total - expertsPerGpu - embedding + (expertsPerGpu * 4) / 128) / h100.memBwBps) * 1e3;
      for (const backend of ['vllm', 'sglang', 'trtllm']) {
        const est = await estimate(['--sku', 'h100_sxm', '--backend', backend, '--tp', '2', '--batch', '1']);
        expect(est.quant).toBe('mxfp4');
        expect(est.weights_bytes_per_gpu).toBe(total);
        expect(est.weights_bytes_per_gpu as number).toBeGreaterThan(30e9);
        expect(est.weights_bytes_per_gpu as number).toBeLessThan(33e9);
        expect(est.max_concurrency as number).toBeGreaterThan(100);
        expect(est.decode_step_ms as number, backend).toBeGreaterThanOrEqual(floorMs);
        // Plausible: a few ms per output token at batch 1 (measured 4–8 ms at low concurrency).
        expect(est.tpot_ms as number, backend).toBeGreaterThan(1);
        expect(est.tpot_ms as number, backend).toBeLessThan(20);
        expect(est.ttft_ms as number).toBeGreaterThan(est.decode_step_ms as number);
      }
    });

    it('--quant nvfp4 on the MXFP4 checkpoint is the checkpoint itself; a bf16 model keeps the FP4 error', async () => {
      const coarse = await estimate(['--sku', 'h200_sxm', '--quant', 'nvfp4', '--tp', '4', '--batch', '8']);
      const own = await estimate(['--sku', 'h200_sxm', '--tp', '4', '--batch', '8']);
      expect(coarse.quant).toBe('mxfp4');
      expect(coarse).toEqual(own);
      const io = capture();
      expect(await main(['estimate', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--sku', 'h100_sxm', '--quant', 'nvfp4', '--tp', '1'], io)).toBe(2);
      expect(io.err).toContain("quantization nvfp4 needs FP4 tensor cores; 'h100_sxm' has none");
      const dense = capture();
      expect(await main(['estimate', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--sku', 'h100_sxm', '--quant', 'mxfp4', '--tp', '1'], dense)).toBe(2);
      expect(dense.err).toContain('no experts');
    });
  });
});
