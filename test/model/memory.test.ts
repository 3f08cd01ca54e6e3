import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { loadSystem } from '../../src/hardware/systems.js';
import type { Backend, KvCacheDtype, WeightQuant } from '../../src/model/arch.js';
import { resolveModel } from '../../src/model/catalog.js';
import { kvBytesPerSequencePerGpu, kvBytesPerTokenPerGpu } from '../../src/model/kv-cache.js';
import {
  estimateMemory,
  kvBytesPerToken,
  kvCapacityBlocksPerRank,
  maxConcurrency,
  totalWeightBytes,
  type MemoryInput,
} from '../../src/model/memory.js';
import type { ParallelShape } from '../../src/parallel/shape.js';

const h100 = loadSystem('h100_sxm');
const h200 = loadSystem('h200_sxm');
const llama8b = resolveModel('meta-llama/Llama-3.1-8B-Instruct');
const llama70b = resolveModel('meta-llama/Llama-3.1-70B');
const dsv3 = resolveModel('deepseek-ai/DeepSeek-V3');

function shape(tp: number, extra: Partial<ParallelShape> = {}): ParallelShape {
  return { tp, pp: 1, attention_dp: 1, moe_tp: tp, moe_ep: 1, ...extra };
}

function input(over: Partial<MemoryInput> & Pick<MemoryInput, 'model'>): MemoryInput {
  return {
    system: h100,
    shape: shape(1),
    backend: 'vllm' as Backend,
    weightQuant: 'bf16' as WeightQuant,
    kvDtype: 'bf16' as KvCacheDtype,
    ...over,
  };
}

describe('KV bytes per token', () => {
  it('is 131072 for Llama-3.1-8B with a bf16 cache (Clarification C), half with fp8', () => {
    expect(kvBytesPerToken(llama8b, 'bf16')).toBe(131072);
    expect(kvBytesPerToken(llama8b, 'fp8')).toBe(65536);
  });

  it('shards GQA heads over tp (replicating past the KV-head count) and layers over pp', () => {
    const perGpu = (tp: number, pp = 1) => kvBytesPerTokenPerGpu(llama8b, 'bf16', { tp, pp });
    expect(perGpu(1)).toBe(131072);
    expect(perGpu(2)).toBe(65536);
    expect(perGpu(8)).toBe(16384);
    expect(perGpu(16)).toBe(16384); // 8 KV heads: tp 16 replicates them
    expect(perGpu(1, 2)).toBe(65536);
    expect(perGpu(1, 3)).toBe((Math.ceil(32 / 3) * 131072) / 32);
  });

  it('uses the MLA latent (kv_lora + rope) per layer and does not shard it over tp', () => {
    expect(kvBytesPerToken(dsv3, 'bf16')).toBe(61 * (512 + 64) * 2);
    expect(kvBytesPerTokenPerGpu(dsv3, 'fp8', { tp: 8, pp: 1 })).toBe(kvBytesPerTokenPerGpu(dsv3, 'fp8', { tp: 1, pp: 1 }));
    expect(kvBytesPerTokenPerGpu(dsv3, 'fp8', { tp: 8, pp: 1 })).toBe(61 * 576);
  });

  it('charges sliding-window and linear-attention layers per sequence, not per token', () => {
    const gptOss = resolveModel('openai/gpt-oss-120b');
    expect(kvBytesPerToken(gptOss, 'bf16')).toBe(18 * 2 * 8 * 64 * 2); // 18 full-attention layers
    expect(kvBytesPerSequencePerGpu(gptOss, 'bf16', { tp: 1, pp: 1 })).toBe(18 * 128 * 2 * 8 * 64 * 2);
    const qwen35 = resolveModel('Qwen/Qwen3.5-397B-A17B');
    expect(kvBytesPerToken(qwen35, 'bf16')).toBe(15 * 2 * 2 * 256 * 2); // 15 of 60 layers keep KV
    const state = kvBytesPerSequencePerGpu(qwen35, 'bf16', { tp: 1, pp: 1 });
    expect(state).toBe(45 * (64 * 128 * 128 * 4 + 3 * (2 * 16 * 128 + 64 * 128) * 2)); // fp32 recurrent, bf16 conv state
    expect(kvBytesPerSequencePerGpu(llama8b, 'bf16', { tp: 1, pp: 1 })).toBe(0);

    const few = estimateMemory(input({ model: gptOss, weightQuant: 'nvfp4', maxNumSeqs: 16 }));
    const many = estimateMemory(input({ model: gptOss, weightQuant: 'nvfp4', maxNumSeqs: 256 }));
    expect(few.kvCapacityTokensPerRank).toBeGreaterThan(many.kvCapacityTokensPerRank);
  });
});

describe('weights', () => {
  it('Llama-3.1-8B bf16 on one GPU is about 16 GB', () => {
    const w = estimateMemory(input({ model: llama8b })).weightsBytesPerGpu;
    expect(Math.abs(w / 16.06e9 - 1)).toBeLessThan(0.03);
    expect(totalWeightBytes(llama8b, 'bf16')).toBe(w);
  });

  it('scales with the weight quant, keeping embedding and LM head in bf16', () => {
    const embed = 2 * 128256 * 8192 * 2;
    const bf16 = totalWeightBytes(llama70b, 'bf16');
    expect((totalWeightBytes(llama70b, 'fp8') - embed) * 2).toBeCloseTo(bf16 - embed, -3);
    expect((totalWeightBytes(llama70b, 'nvfp4') - embed) * (32 / 9)).toBeCloseTo(bf16 - embed, -3);
    expect(totalWeightBytes(llama70b, 'fp8')).toBe(totalWeightBytes(llama70b, 'fp8_block'));
  });

  it('halves per GPU with tp for a dense model whose heads divide evenly', () => {
    const w = (tp: number) => estimateMemory(input({ model: llama70b, shape: shape(tp), weightQuant: 'fp8' })).weightsBytesPerGpu;
    expect(w(2)).toBeCloseTo(w(1) / 2, 0);
    expect(w(8)).toBeCloseTo(w(1) / 8, 0);
    // Past 8 KV heads the k/v projections are replicated.
    expect(w(16)).toBeGreaterThan(w(1) / 16);
  });

  it('splits routed experts by moe_tp × moe_ep and replicates attention across attention-DP ranks', () => {
    const w = (s: ParallelShape) =>
      estimateMemory(input({ model: dsv3, system: h200, shape: s, weightQuant: 'fp8_block' })).weightsBytesPerGpu;
    const tep = w(shape(8, { moe_tp: 1, moe_ep: 8 }));
    const tp = w(shape(8, { moe_tp: 8, moe_ep: 1 }));
    const dep = w(shape(1, { attention_dp: 8, moe_tp: 1, moe_ep: 8 }));
    expect(tep).toBeCloseTo(tp, 0);
    expect(dep).toBeGreaterThan(tep);
    // DeepSeek-V3 is ~671 B parameters (MTP excluded): fp8 + bf16 embeddings ≈ 673 GB.
    expect(totalWeightBytes(dsv3, 'fp8_block') / 1e9).toBeGreaterThan(660);
    expect(totalWeightBytes(dsv3, 'fp8_block') / 1e9).toBeLessThan(690);
  });

  it('splits layers over pp (embedding on the first stage, LM head on the last)', () => {
    const one = estimateMemory(input({ model: llama70b, weightQuant: 'fp8' })).weightsBytesPerGpu;
    const two = estimateMemory(input({ model: llama70b, shape: shape(1, { pp: 2 }), weightQuant: 'fp8' })).weightsBytesPerGpu;
    const vocab = 128256 * 8192 * 2;
    expect(two).toBeCloseTo((one - 2 * vocab) / 2 + vocab, 0);
  });

  it('sizes routed experts with moeQuant when given', () => {
    const base = { model: dsv3, system: h200, shape: shape(8, { moe_tp: 1, moe_ep: 8 }) };
    const mixed = estimateMemory(input({ ...base, weightQuant: 'fp8_block', moeQuant: 'nvfp4' })).weightsBytesPerGpu;
    const fp8 = estimateMemory(input({ ...base, weightQuant: 'fp8_block' })).weightsBytesPerGpu;
    const fp4 = estimateMemory(input({ ...base, weightQuant: 'nvfp4' })).weightsBytesPerGpu;
    expect(mixed).toBeLessThan(fp8);
    expect(mixed).toBeGreaterThan(fp4);
  });
});

describe('KV capacity', () => {
  it('Llama-3.1-70B fp8 does not fit one H100 but fits two', () => {
    const one = estimateMemory(input({ model: llama70b, weightQuant: 'fp8' }));
    expect(one.fits).toBe(false);
    expect(one.kvCapacityTokensPerRank).toBe(0);
    expect(one.kvBudgetBytesPerGpu).toBe(0);
    const two = estimateMemory(input({ model: llama70b, shape: shape(2), weightQuant: 'fp8' }));
    expect(two.fits).toBe(true);
    expect(two.kvCapacityTokensPerRank).toBeGreaterThan(131072);
  });

  it('DeepSeek-V3 fp8 needs 8×H200 (8×H100 and 4×H200 are too small)', () => {
    const ds = (system = h200, gpus = 8) =>
      estimateMemory(input({ model: dsv3, system, shape: shape(gpus, { moe_tp: 1, moe_ep: gpus }), weightQuant: 'fp8_block', backend: 'trtllm' }));
    expect(ds(h200, 8).fits).toBe(true);
    expect(ds(h200, 8).kvCapacityTokensPerRank).toBeGreaterThan(163840);
    expect(ds(h200, 4).fits).toBe(false);
    expect(ds(h100, 8).fits).toBe(false);
  });

  it('Llama-3.1-8B bf16 on one H100 under vLLM holds ~420k tokens', () => {
    const est = estimateMemory(input({ model: llama8b }));
    expect(est.activationBytesPerGpu).toBe(2 * 8192 * 4096 * 11);
    expect(est.reservedBytesPerGpu).toBe(3.5 * 2 ** 30);
    const budget = h100.memCapacityBytes * 0.9 * 0.98 - est.weightsBytesPerGpu - est.activationBytesPerGpu - est.reservedBytesPerGpu;
    expect(est.kvBudgetBytesPerGpu).toBeCloseTo(budget, 0);
    expect(est.kvCapacityTokensPerRank).toBe(Math.floor(budget / 131072));
    expect(est.kvCapacityTokensPerRank).toBeGreaterThan(380_000);
    expect(est.kvCapacityTokensPerRank).toBeLessThan(460_000);
  });

  it('TRT-LLM takes its fraction of the free memory; SGLang reserves more than vLLM', () => {
    const trt = estimateMemory(input({ model: llama8b, backend: 'trtllm' }));
    const nonKv = trt.weightsBytesPerGpu + trt.activationBytesPerGpu + trt.reservedBytesPerGpu;
    expect(trt.kvBudgetBytesPerGpu).toBeCloseTo((h100.memCapacityBytes - nonKv) * 0.9 * 0.985 * 0.98, 0);
    const vllm = estimateMemory(input({ model: llama8b }));
    const sglang = estimateMemory(input({ model: llama8b, backend: 'sglang' }));
    expect(sglang.reservedBytesPerGpu).toBeCloseTo(3.5 * 2 ** 30 * 1.2, 0);
    expect(sglang.activationBytesPerGpu).toBeGreaterThan(vllm.activationBytesPerGpu);
    expect(sglang.kvCapacityTokensPerRank).toBeLessThan(vllm.kvCapacityTokensPerRank);
  });

  it('adds NCCL buffers by min(tp, 8) and grows activations with the batched tokens', () => {
    const tp4 = estimateMemory(input({ model: llama8b, shape: shape(4) }));
    expect(tp4.reservedBytesPerGpu).toBe(392 * 2 ** 20 + 3.5 * 2 ** 30);
    const small = estimateMemory(input({ model: llama8b, maxNumBatchedTokens: 2048 }));
    const big = estimateMemory(input({ model: llama8b, maxNumBatchedTokens: 16384 }));
    expect(big.activationBytesPerGpu).toBe(8 * small.activationBytesPerGpu);
    expect(big.kvCapacityTokensPerRank).toBeLessThan(small.kvCapacityTokensPerRank);
  });

  it('is monotonic in gpu_memory_utilization for every backend', () => {
    for (const backend of ['vllm', 'sglang', 'trtllm'] as const) {
      let prev = -1;
      for (const util of [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95]) {
        const t = estimateMemory(input({ model: llama70b, shape: shape(2), weightQuant: 'fp8', backend, gpuMemoryUtilization: util })).kvCapacityTokensPerRank;
        expect(t, `${backend} ${util}`).toBeGreaterThanOrEqual(prev);
        prev = t;
      }
      expect(prev).toBeGreaterThan(0);
    }
  });

  it('derives blocks and max concurrency from the per-rank tokens', () => {
    const est = estimateMemory(input({ model: dsv3, system: h200, shape: shape(1, { attention_dp: 8, moe_tp: 1, moe_ep: 8 }), weightQuant: 'fp8_block', kvDtype: 'fp8' }));
    expect(est.fits).toBe(true);
    expect(kvCapacityBlocksPerRank(est, 64)).toBe(Math.floor(est.kvCapacityTokensPerRank / 64));
    expect(maxConcurrency(est, 8, 1000, 200)).toBe(Math.floor((est.kvCapacityTokensPerRank * 8) / 1200));
    expect(maxConcurrency({ ...est, kvCapacityTokensPerRank: 2399 }, 1, 1000, 200)).toBe(1);
    expect(() => kvCapacityBlocksPerRank(est, 0)).toThrow(InputError);
    expect(() => maxConcurrency(est, 1, 0, 0)).toThrow(InputError);
  });

  it('rejects an invalid shape or utilization', () => {
    expect(() => estimateMemory(input({ model: llama8b, shape: shape(0) }))).toThrow(InputError);
    expect(() => estimateMemory(input({ model: llama8b, gpuMemoryUtilization: 1.2 }))).toThrow(/gpu_memory_utilization/);
  });
});

describe('DeepSeek-V3 on H200 with attention data parallelism + MoE tensor parallelism (DTP)', () => {
  const est = (backend: Backend, s: ParallelShape) => estimateMemory({ model: dsv3, system: h200, shape: s, backend, weightQuant: dsv3.weightQuant, kvDtype: dsv3.kvCacheDtype });
  const dep = shape(1, { attention_dp: 8, moe_tp: 1, moe_ep: 8 });
  const dtp = shape(1, { attention_dp: 8, moe_tp: 8, moe_ep: 1 });
  it.each(['vllm', 'sglang', 'trtllm'] as const)('%s: DTP holds weights and KV like DEP (no EP all-to-all workspace × DP)', (backend) => {
    const a = est(backend, dep);
    const b = est(backend, dtp);
    // Same weights per GPU: experts split 8 ways either way.
    expect(b.weightsBytesPerGpu).toBeCloseTo(a.weightsBytesPerGpu, -6);
    // The MoE-TP gather buffer is small: DTP keeps ≥ 90 % of DEP's KV (it had 0 on vLLM/SGLang).
    expect(b.fits).toBe(true);
    expect(b.kvCapacityTokensPerRank).toBeGreaterThan(0.9 * a.kvCapacityTokensPerRank);
    expect(b.kvCapacityTokensPerRank).toBeLessThanOrEqual(a.kvCapacityTokensPerRank);
  });
  it('the gather buffer grows with attention DP', () => {
    const small = est('vllm', shape(1, { attention_dp: 2, moe_tp: 2, moe_ep: 1 }));
    const large = est('vllm', shape(1, { attention_dp: 8, moe_tp: 8, moe_ep: 1 }));
    expect(large.activationBytesPerGpu).toBeGreaterThan(small.activationBytesPerGpu);
  });
});
