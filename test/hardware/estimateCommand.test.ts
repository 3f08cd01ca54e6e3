import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CommandIo } from '../../src/cli/command.js';

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
});
