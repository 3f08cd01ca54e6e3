import { describe, expect, it } from 'vitest';
import { defaultRequest, encodeConfig, geometricCentre, latentSpace } from '../../src/parallel/latent.js';
import { enumerateBranch } from '../../src/parallel/enumerate.js';
import { ampleKv, denseFacts, group, moeFacts, poolOf } from './fixtures.js';

describe('geometricCentre', () => {
  it('picks the feasible value closest in log space to sqrt(min·max), ties to the smaller', () => {
    expect(geometricCentre([1, 2, 4, 8, 16])).toBe(4);
    expect(geometricCentre([16, 1, 8])).toBe(8); // centre 4 absent: 8 is 1 away in log2
    expect(geometricCentre([1, 16])).toBe(1); // 1 and 16 tie at log2 distance 2 → the smaller
    expect(geometricCentre([1, 2])).toBe(1);
    expect(geometricCentre([2, 4, 8])).toBe(4);
    expect(geometricCentre([1, 4, 16])).toBe(4);
    expect(geometricCentre([1, 2, 16])).toBe(2);
    expect(geometricCentre([8])).toBe(8);
  });
});

describe('encodeConfig', () => {
  it('encodes agg configs', () => {
    expect(encodeConfig(group({ attention_dp: 4, moe_ep: 4, replicas: 2 }), 'agg', 32, true)).toEqual({
      used_gpu_ratio: 0.25,
      agg_num_gpus_per_engine_target: 4,
      agg_attention_mode: 'dp',
      agg_ffn_mode: 'ep',
    });
    // Dense pools have no FFN-mode feature.
    expect(encodeConfig(group({ tp: 2 }), 'agg', 8, false)).toEqual({
      used_gpu_ratio: 0.25,
      agg_num_gpus_per_engine_target: 2,
      agg_attention_mode: 'tp',
    });
  });
  it('encodes disagg configs', () => {
    const c = { prefill: group({ tp: 4, moe_ep: 4, replicas: 1 }), decode: group({ tp: 8, moe_tp: 8, replicas: 3 }) };
    const e = encodeConfig(c, 'disagg', 32, true);
    expect(e).toMatchObject({
      used_gpu_ratio: 0.875,
      prefill_num_gpus_per_engine_target: 4,
      decode_num_gpus_per_engine_target: 8,
      prefill_attention_mode: 'tp',
      decode_attention_mode: 'tp',
      prefill_ffn_mode: 'ep',
      decode_ffn_mode: 'tp',
    });
    expect(e.prefill_gpu_share).toBeCloseTo(4 / 28, 12);
  });
});

describe('latentSpace', () => {
  it('agg MoE pool from enumeration: ranges, geometric centre, mode order, defaults', () => {
    const b = enumerateBranch({ facts: moeFacts, kvTokensPerRank: ampleKv, gpuBudget: 16, minGpuBudget: 1 }, 'agg', ['vllm']);
    const s = latentSpace(b, 'agg');
    expect(s.constants).toEqual({});
    expect(s.features).toEqual([
      { name: 'used_gpu_ratio', kind: 'continuous', range: [1 / 16, 1], default: 1 },
      { name: 'agg_num_gpus_per_engine_target', kind: 'discrete', values: [1, 2, 4, 8], log_scale: true, default: 2 },
      { name: 'agg_attention_mode', kind: 'categorical', values: ['tp', 'dp'], default: 'tp' },
      { name: 'agg_ffn_mode', kind: 'categorical', values: ['ep', 'tp'], default: 'ep' },
    ]);
    expect(defaultRequest(b, 'agg')).toEqual({
      used_gpu_ratio: 1,
      agg_num_gpus_per_engine_target: 2,
      agg_attention_mode: 'tp',
      agg_ffn_mode: 'ep',
    });
  });

  it('dense pools omit FFN modes; single-valued features become constants', () => {
    const p = poolOf('agg', 8, false, [group({ tp: 2, replicas: 4 }), group({ tp: 8 })]);
    const s = latentSpace(p, 'agg');
    expect(s.features.map((f) => f.name)).toEqual(['agg_num_gpus_per_engine_target']);
    expect(s.constants).toEqual({ used_gpu_ratio: 1, agg_attention_mode: 'tp' });
    expect(defaultRequest(p, 'agg')).toEqual({ used_gpu_ratio: 1, agg_num_gpus_per_engine_target: 2, agg_attention_mode: 'tp' });
  });

  it('clips the nominal ratio/share defaults to the pool range and lists modes in seed order', () => {
    const p = poolOf('disagg', 32, true, [
      { prefill: group({ tp: 4, moe_ep: 4, replicas: 2 }), decode: group({ tp: 8, moe_ep: 8 }) },
      { prefill: group({ tp: 4, moe_ep: 4 }), decode: group({ tp: 8, moe_tp: 8, replicas: 3 }) },
    ]);
    const s = latentSpace(p, 'disagg');
    expect(s.features).toEqual([
      { name: 'used_gpu_ratio', kind: 'continuous', range: [0.5, 0.875], default: 0.875 },
      { name: 'prefill_gpu_share', kind: 'continuous', range: [4 / 28, 0.5], default: 0.5 },
      { name: 'decode_ffn_mode', kind: 'categorical', values: ['ep', 'tp'], default: 'ep' },
    ]);
    expect(s.constants).toEqual({
      prefill_num_gpus_per_engine_target: 4,
      decode_num_gpus_per_engine_target: 8,
      prefill_attention_mode: 'tp',
      decode_attention_mode: 'tp',
      prefill_ffn_mode: 'ep',
    });
    // A share default below the range is clipped up.
    const q = poolOf('disagg', 8, false, [
      { prefill: group({ tp: 1, replicas: 6 }), decode: group({ tp: 1 }) },
      { prefill: group({ tp: 1, replicas: 7 }), decode: group({ tp: 1 }) },
    ]);
    expect(latentSpace(q, 'disagg').features.find((f) => f.name === 'prefill_gpu_share')?.default).toBeCloseTo(6 / 7, 12);
  });

  it('a one-config pool has no searched feature', () => {
    const p = poolOf('agg', 8, true, [group({ tp: 4, moe_ep: 4, replicas: 2 })]);
    expect(latentSpace(p, 'agg')).toEqual({
      features: [],
      constants: { used_gpu_ratio: 1, agg_num_gpus_per_engine_target: 4, agg_attention_mode: 'tp', agg_ffn_mode: 'ep' },
    });
  });

  it('enumerated dense disagg pool over budget 32 defaults engine sizes to the geometric centre 4', () => {
    const b = enumerateBranch({ facts: { ...denseFacts, gpusPerNode: 16 }, kvTokensPerRank: ampleKv, gpuBudget: 32 }, 'disagg', ['vllm']);
    const s = latentSpace(b, 'disagg');
    const pre = s.features.find((f) => f.name === 'prefill_num_gpus_per_engine_target');
    expect(pre).toEqual({ name: 'prefill_num_gpus_per_engine_target', kind: 'discrete', values: [1, 2, 4, 8, 16], log_scale: true, default: 4 });
    expect(defaultRequest(b, 'disagg')).toMatchObject({ used_gpu_ratio: 1, prefill_gpu_share: 0.5 });
  });

  it('rejects a pool of the other mode', () => {
    const p = poolOf('agg', 8, false, [group({ tp: 2 })]);
    expect(() => latentSpace(p, 'disagg')).toThrow(/agg pool/);
  });
});
