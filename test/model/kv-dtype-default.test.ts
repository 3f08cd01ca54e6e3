// The KV-cache dtype an engine runs with when the config names none (model/kv-cache.ts
// defaultKvCacheDtype): TRT-LLM inherits the FP8 KV cache of the ModelOpt checkpoints it serves at
// per-tensor FP8 / NVFP4; vLLM and SGLang store the model's dtype. The replay, the pool's KV
// feasibility and `spica estimate` all read it.
import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/load.js';
import { loadSystem } from '../../src/hardware/systems.js';
import { resolveModel } from '../../src/model/catalog.js';
import { defaultKvCacheDtype } from '../../src/model/kv-cache.js';
import { closedLoopConfig } from '../../src/replay/closed-loop-config.js';
import { replaySpecFromConfig } from '../../src/replay/from-config.js';
import { resolveReplay } from '../../src/replay/resolve.js';

describe('default KV-cache dtype', () => {
  it('TRT-LLM at per-tensor fp8 / nvfp4 runs an FP8 KV cache; block-scaled FP8, MXFP4, bf16 and the other engines keep the model dtype', () => {
    const qwen = resolveModel('Qwen/Qwen3-32B');
    const r1 = resolveModel('deepseek-ai/DeepSeek-R1');
    const oss = resolveModel('openai/gpt-oss-120b');
    expect(defaultKvCacheDtype(qwen, 'trtllm', 'fp8')).toBe('fp8');
    expect(defaultKvCacheDtype(qwen, 'trtllm', 'nvfp4')).toBe('fp8');
    expect(defaultKvCacheDtype(r1, 'trtllm', 'nvfp4')).toBe('fp8');
    expect(defaultKvCacheDtype(resolveModel('nvidia/DeepSeek-R1-NVFP4'), 'trtllm')).toBe('fp8');
    // 'fp8' on DeepSeek's block-scaled checkpoint is that checkpoint (not ModelOpt's); nvfp4 on gpt-oss is its MXFP4.
    expect(defaultKvCacheDtype(r1, 'trtllm', 'fp8')).toBe('bf16');
    expect(defaultKvCacheDtype(oss, 'trtllm', 'nvfp4')).toBe('bf16');
    expect(defaultKvCacheDtype(qwen, 'trtllm', 'bf16')).toBe('bf16');
    expect(defaultKvCacheDtype(qwen, 'trtllm')).toBe('bf16');
    for (const b of ['vllm', 'sglang'] as const) {
      expect(defaultKvCacheDtype(qwen, b, 'fp8')).toBe('bf16');
      expect(defaultKvCacheDtype(r1, b, 'nvfp4')).toBe('bf16');
    }
  });

  it('a config without kv_cache_dtype replays TRT-LLM fp8 with twice the bf16 KV tokens; an explicit kv_cache_dtype wins', () => {
    const sys = loadSystem('h100_sxm');
    const capacity = (kvDtype?: string): number => {
      const doc = closedLoopConfig({ model: 'Qwen/Qwen3-32B', sku: 'h100_sxm', backend: 'trtllm', quant: 'fp8', ...(kvDtype ? { kvDtype } : {}), group: { tp: 1, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 1, replicas: 1 }, isl: 4096, osl: 256, concurrency: 64 }, sys.memCapacityBytes);
      const spec = replaySpecFromConfig(configFromObject(doc, { sourceName: 'kv-default' }), { source: 'kv-default' });
      return resolveReplay(spec).kvCapacityTokensPerRank.agg!;
    };
    const auto = capacity();
    const bf16 = capacity('bf16');
    expect(capacity('fp8')).toBe(auto);
    expect(auto / bf16).toBeCloseTo(2, 1);
    // 64 clients × (4096 + 256) tokens — what TRT-LLM reserves up front — fit the default, not bf16.
    expect(auto).toBeGreaterThan(64 * (4096 + 256));
    expect(bf16).toBeLessThan(64 * (4096 + 256));
  });
});
