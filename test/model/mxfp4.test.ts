// MXFP4 (gpt-oss) checkpoints: experts at 4.25 bits per weight, everything else bf16.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { loadSystem } from '../../src/hardware/systems.js';
import { resolveModel } from '../../src/model/catalog.js';
import { checkpointScaling } from '../../src/model/checkpoint-scaling.js';
import { estimateMemory } from '../../src/model/memory.js';
import { WEIGHT_BYTES, totalWeightBytes, weightBytesPerGpu, weightLayout } from '../../src/model/weights.js';
import type { ParallelShape } from '../../src/parallel/shape.js';

const gptOss = resolveModel('openai/gpt-oss-120b');
const h100 = loadSystem('h100_sxm');
const shape = (tp: number): ParallelShape => ({ tp, pp: 1, attention_dp: 1, moe_tp: tp, moe_ep: 1 });
// 36 layers × 128 experts × 3 GEMMs of 2880 × 2880.
const EXPERT_WEIGHTS = 36 * 128 * 3 * 2880 * 2880;
const VOCAB_BYTES = 2 * 201088 * 2880 * 2;

describe('MXFP4 weight layout', () => {
  it('catalogues gpt-oss as an MXFP4 checkpoint: experts mxfp4, attention bf16', () => {
    expect(gptOss.weightQuant).toBe('mxfp4');
    expect(resolveModel('openai/gpt-oss-20b').weightQuant).toBe('mxfp4');
    expect(weightLayout(gptOss, 'mxfp4')).toEqual({ linear: 'bf16', moe: 'mxfp4' });
    expect(WEIGHT_BYTES.mxfp4).toBe(0.5 + 1 / 32); // e2m1 + one e8m0 byte per 32 weights
  });

  it('gpt-oss-120b is about 65 GB: 4.25-bit experts plus bf16 attention and embeddings', () => {
    const total = totalWeightBytes(gptOss);
    expect(total / 1e9).toBeGreaterThan(60);
    expect(total / 1e9).toBeLessThan(66);
    const attentionBf16 = total - VOCAB_BYTES - EXPERT_WEIGHTS * (17 / 32);
    // 36 × (q 2880·4096 + kv 2·2880·512 + o 4096·2880) bf16 parameters.
    expect(attentionBf16).toBeCloseTo(36 * (2880 * 4096 * 2 + 2 * 2880 * 512) * 2, -3);
  });

  it('on h100 at tp 2 each GPU holds half the experts and attention, and the KV cache fits', () => {
    const est = estimateMemory({ model: gptOss, system: h100, shape: shape(2), backend: 'vllm', weightQuant: 'mxfp4', kvDtype: 'bf16' });
    expect(est.weightsBytesPerGpu).toBeCloseTo(totalWeightBytes(gptOss) / 2, -3);
    expect(est.weightsBytesPerGpu / 1e9).toBeGreaterThan(30);
    expect(est.weightsBytesPerGpu / 1e9).toBeLessThan(33);
    expect(est.fits).toBe(true);
    expect(est.kvCapacityTokensPerRank).toBeGreaterThan(500_000);
    // One H100 holds the whole model (as deployed in practice), with a smaller KV cache.
    const one = estimateMemory({ model: gptOss, system: h100, shape: shape(1), backend: 'vllm', weightQuant: 'mxfp4', kvDtype: 'bf16' });
    expect(one.fits).toBe(true);
    expect(one.kvCapacityTokensPerRank).toBeLessThan(est.kvCapacityTokensPerRank);
  });

  it('a coarse nvfp4 label on the MXFP4 checkpoint means MXFP4 (same bytes, same kernels)', () => {
    expect(checkpointScaling('nvfp4', 'mxfp4')).toBe('mxfp4');
    expect(checkpointScaling('nvfp4', 'bf16')).toBe('nvfp4');
    expect(totalWeightBytes(gptOss, 'nvfp4')).toBe(totalWeightBytes(gptOss, 'mxfp4'));
    expect(weightLayout(gptOss, 'nvfp4')).toEqual({ linear: 'bf16', moe: 'mxfp4' });
  });

  it('quantizes only the routed experts of another MoE to mxfp4, and refuses it for a dense model', () => {
    const qwen = resolveModel('Qwen/Qwen3-30B-A3B');
    const s = shape(1);
    const bf16 = weightBytesPerGpu(qwen, s, weightLayout(qwen, 'bf16'));
    const mx = weightBytesPerGpu(qwen, s, weightLayout(qwen, 'mxfp4'));
    const experts = (qwen.numLayers - qwen.firstKDense) * qwen.numExperts * 3 * qwen.hiddenSize * qwen.moeIntermediateSize;
    expect(bf16 - mx).toBeCloseTo(experts * (2 - 17 / 32), -3);
    const llama = resolveModel('meta-llama/Llama-3.1-8B-Instruct');
    expect(() => totalWeightBytes(llama, 'mxfp4')).toThrow(InputError);
    expect(() => totalWeightBytes(llama, 'mxfp4')).toThrow(/no experts/);
  });

  it('explicit layouts never store linear layers as mxfp4', () => {
    expect(weightBytesPerGpu(gptOss, shape(1), { linear: 'mxfp4', moe: 'mxfp4' })).toBe(weightBytesPerGpu(gptOss, shape(1), { linear: 'bf16', moe: 'mxfp4' }));
  });
});
