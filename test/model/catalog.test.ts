import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import type { WeightQuant } from '../../src/model/arch.js';
import { findCatalogModel, listModels, resolveModel } from '../../src/model/catalog.js';
import { readPerfdbCsv } from './perfdb-csv.js';

/** models.csv rows whose architecture ModelArch cannot express (see report / known-models.ts). */
const NOT_CATALOGUED = new Set([
  'MiniMaxAI/MiniMax-M3', // MiniMaxM3 (sparse attention, 1M context) — attention scheme not public in models.csv
  'nvidia/MiniMax-M3-NVFP4',
  'XiaomiMiMo/MiMo-7B-Base',
  'XiaomiMiMo/MiMo-V2-Flash', // hybrid SWA pattern + MoE
  'deepseek-ai/DeepSeek-V4-Flash', // compressed / hybrid attention (1 KV head of 512)
  'deepseek-ai/DeepSeek-V4-Pro',
  'nvidia/DeepSeek-V4-Flash-NVFP4',
  'nvidia/DeepSeek-V4-Pro-NVFP4',
  'sgl-project/DeepSeek-V4-Flash-FP8',
  'sgl-project/DeepSeek-V4-Pro-FP8',
  'google/gemma-4-26B-A4B', // Gemma-4: per-layer heterogeneous heads
  'nvidia/Gemma-4-26B-A4B-NVFP4',
  'nvidia/Gemma-4-31B-IT-NVFP4',
  'meta-llama/Llama-4-Maverick-17B-128E-Instruct', // interleaved dense/MoE layers, chunked attention
  'meta-llama/Llama-4-Scout-17B-16E-Instruct',
  'moonshotai/Kimi-K3', // unknown attention (head_dim 74, no top-k in config)
  'nvidia/Llama-3_3-Nemotron-Super-49B-v1', // NAS: per-layer heterogeneous blocks
  'nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16', // Mamba-2 hybrids
  'nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4',
  'nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8',
  'nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4',
  'nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16',
  'nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-FP8',
  'nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-NVFP4',
  'nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4',
  'nvidia/Nemotron-H-56B-Base-8K',
  'nvidia/Qwen3.6-27B-NVFP4', // Qwen3.6: linear-attention dims not in models.csv
  'nvidia/Qwen3.6-35B-A3B-NVFP4',
  'stepfun-ai/Step-3.7-Flash', // Step-3.7: mixed SWA / full layers with unknown pattern
  'stepfun-ai/Step-3.7-Flash-FP8',
  'zai-org/GLM-5.2', // GLM-5.2: different head_dim (192), 1M context attention
  'zai-org/GLM-5.2-FP8',
  'nvidia/GLM-5.2-NVFP4',
]);

function num(v: string): number {
  return v === '' ? 0 : Number(v);
}

function expectedQuant(row: Record<string, string>): WeightQuant {
  const algo = row.hf_quant_algo.toUpperCase();
  if (algo === 'NVFP4' || algo === 'MIXED_PRECISION') return 'nvfp4';
  if (algo === 'FP8') return 'fp8';
  switch (row.quant_method) {
    case 'fp8':
      return row.quant_weight_block_size ? 'fp8_block' : 'fp8';
    case 'mxfp4': // gpt-oss: MXFP4 experts, bf16 attention — its own format
      return 'mxfp4';
    case 'compressed-tensors': // Kimi-K2.5 int4 weight-only, group 32 = 9/16 B
    case 'modelopt': // nvidia/*-NVFP4 exports without hf_quant_algo in the extract
      return 'nvfp4';
    default:
      return 'bf16';
  }
}

describe('catalog facts vs perfdb/models.csv', () => {
  const rows = readPerfdbCsv('models.csv');

  it('catalogues every models.csv row except the documented inexpressible architectures', () => {
    const missing = rows.map((r) => r.model_id).filter((id) => !findCatalogModel(id) && !NOT_CATALOGUED.has(id));
    expect(missing).toEqual([]);
    const stale = [...NOT_CATALOGUED].filter((id) => findCatalogModel(id) || !rows.some((r) => r.model_id === id));
    expect(stale).toEqual([]);
  });

  it('matches every catalogued row field by field', () => {
    let checked = 0;
    for (const row of rows) {
      const m = findCatalogModel(row.model_id);
      if (!m) continue;
      checked++;
      const ctx = `${row.model_id} → ${m.id}`;
      expect(m.numLayers, ctx).toBe(num(row.num_hidden_layers));
      expect(m.hiddenSize, ctx).toBe(num(row.hidden_size));
      expect(m.numHeads, ctx).toBe(num(row.num_attention_heads));
      expect(m.numKvHeads, ctx).toBe(num(row.num_key_value_heads));
      expect(m.vocabSize, ctx).toBe(num(row.vocab_size));
      expect(m.maxContext, ctx).toBe(num(row.max_position_embeddings));
      expect(m.numExperts, ctx).toBe(num(row.num_experts));
      expect(m.topK, ctx).toBe(num(row.num_experts_per_tok));
      expect(m.firstKDense, ctx).toBe(num(row.first_k_dense_replace));
      expect(m.slidingWindow, ctx).toBe(num(row.sliding_window));
      expect(m.mtpLayers, ctx).toBe(num(row.num_nextn_predict_layers));
      if (row.n_shared_experts) expect(m.sharedExperts, ctx).toBe(num(row.n_shared_experts));
      if (row.intermediate_size) expect(m.intermediateSize, ctx).toBe(num(row.intermediate_size));
      if (m.numExperts > 0) {
        expect(m.moeIntermediateSize, ctx).toBe(num(row.moe_intermediate_size || row.intermediate_size));
      }
      if (m.attention === 'mla') {
        expect(row.kv_lora_rank, ctx).not.toBe('');
        expect(m.kvLoraRank, ctx).toBe(num(row.kv_lora_rank));
        expect(m.qLoraRank, ctx).toBe(num(row.q_lora_rank));
        expect(m.qkNopeHeadDim, ctx).toBe(num(row.qk_nope_head_dim));
        expect(m.qkRopeHeadDim, ctx).toBe(num(row.qk_rope_head_dim));
        expect(m.vHeadDim, ctx).toBe(num(row.v_head_dim));
        expect(m.headDim, ctx).toBe(m.qkNopeHeadDim + m.qkRopeHeadDim);
      } else {
        expect(row.kv_lora_rank, ctx).toBe('');
        expect(m.headDim, ctx).toBe(num(row.head_dim));
      }
      expect(m.weightQuant, ctx).toBe(expectedQuant(row));
    }
    expect(checked).toBeGreaterThanOrEqual(45);
  });

  it('resolves every model_path of e2e/silicon_dev.csv', () => {
    const paths = [...new Set(readPerfdbCsv('e2e/silicon_dev.csv').map((r) => r.model_path))];
    expect(paths.length).toBeGreaterThan(10);
    for (const p of paths) expect(() => resolveModel(p), p).not.toThrow();
    expect(resolveModel('zhipuai/GLM-5').id).toBe('zai-org/GLM-5');
  });
});

describe('catalog lookup', () => {
  it('has the required families with their quantized variants', () => {
    const ids = listModels();
    for (const id of [
      'meta-llama/Llama-3.1-8B-Instruct',
      'meta-llama/Llama-3.1-70B',
      'meta-llama/Llama-3.1-70B-Instruct',
      'meta-llama/Llama-3.3-70B-Instruct',
      'meta-llama/Llama-3.1-405B-Instruct',
      'Qwen/Qwen3-32B',
      'Qwen/Qwen3-32B-FP8',
      'Qwen/Qwen3-30B-A3B',
      'Qwen/Qwen3-235B-A22B',
      'nvidia/Qwen3-235B-A22B-NVFP4',
      'deepseek-ai/DeepSeek-V3',
      'deepseek-ai/DeepSeek-R1',
      'nvidia/DeepSeek-R1-NVFP4',
      'openai/gpt-oss-120b',
      'mistralai/Mixtral-8x7B-Instruct-v0.1',
      'MiniMaxAI/MiniMax-M2.5',
      'nvidia/MiniMax-M2.5-NVFP4',
    ]) {
      expect(ids).toContain(id);
    }
    expect(ids).toEqual([...ids].sort((a, b) => a.localeCompare(b)));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('accepts aliases case-insensitively and without org', () => {
    expect(resolveModel('llama-3.1-8b-instruct').id).toBe('meta-llama/Llama-3.1-8B-Instruct');
    expect(resolveModel('META-LLAMA/LLAMA-3.1-8B-INSTRUCT').id).toBe('meta-llama/Llama-3.1-8B-Instruct');
    expect(resolveModel('Meta-Llama-3.1-8B-Instruct').id).toBe('meta-llama/Llama-3.1-8B-Instruct');
    expect(resolveModel('meta-llama/Meta-Llama-3.1-70B').id).toBe('meta-llama/Llama-3.1-70B');
    expect(resolveModel(' deepseek-r1 ').id).toBe('deepseek-ai/DeepSeek-R1');
    expect(resolveModel('mixtral-8x7b').id).toBe('mistralai/Mixtral-8x7B-Instruct-v0.1');
  });

  it('gives variants their own quant but the base architecture', () => {
    const base = resolveModel('Qwen/Qwen3-235B-A22B');
    const fp8 = resolveModel('Qwen/Qwen3-235B-A22B-FP8');
    const fp4 = resolveModel('nvidia/Qwen3-235B-A22B-NVFP4');
    expect([base.weightQuant, fp8.weightQuant, fp4.weightQuant]).toEqual(['bf16', 'fp8_block', 'nvfp4']);
    expect({ ...fp8, id: base.id, weightQuant: base.weightQuant }).toEqual(base);
    expect(resolveModel('nvidia/Llama-3.1-8B-Instruct-FP8').weightQuant).toBe('fp8');
    expect(resolveModel('meta-llama/Llama-3.3-70B-Instruct').numLayers).toBe(80);
  });

  it('returns copies: mutating a result does not change the catalog', () => {
    const a = resolveModel('Qwen/Qwen3.5-397B-A17B');
    a.numLayers = 1;
    a.linearAttention!.layers = 0;
    const b = resolveModel('Qwen/Qwen3.5-397B-A17B');
    expect(b.numLayers).toBe(60);
    expect(b.linearAttention?.layers).toBe(45);
  });

  it('encodes the hybrid and windowed layouts', () => {
    const q = resolveModel('Qwen/Qwen3.5-397B-A17B');
    expect(q.linearAttention).toEqual({ layers: 45, numKeyHeads: 16, numValueHeads: 64, keyHeadDim: 128, valueHeadDim: 128, convKernel: 4 });
    const g = resolveModel('openai/gpt-oss-120b');
    expect([g.slidingWindow, g.slidingWindowLayerFraction]).toEqual([128, 0.5]);
    expect(resolveModel('deepseek-ai/DeepSeek-V3').attention).toBe('mla');
  });

  it('rejects an unknown id with an InputError listing the known ids', () => {
    let err: unknown;
    try {
      resolveModel('acme/NotAModel-7B');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    const msg = (err as InputError).message;
    expect(msg).toContain("unknown model 'acme/NotAModel-7B'");
    expect(msg).toContain('meta-llama/Llama-3.1-8B-Instruct');
    expect(msg).toContain('deepseek-ai/DeepSeek-V3');
    expect((err as InputError).exitCode).toBe(2);
    expect(() => resolveModel('')).toThrow(InputError);
    expect(() => resolveModel('missing/config.json', { baseDir: '/nonexistent' })).toThrow(/not found/);
  });
});
