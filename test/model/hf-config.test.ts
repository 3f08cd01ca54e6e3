import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { resolveModel } from '../../src/model/catalog.js';
import { parseHfConfig } from '../../src/model/hf-config.js';

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, 'fixtures');

describe('Hugging Face config.json loading', () => {
  it('reads a dense GQA config with head_dim fallback and per-tensor fp8', () => {
    const m = resolveModel('llama-like/config.json', { baseDir: fixtures });
    expect(m).toMatchObject({
      id: 'acme/tiny-llama-fp8',
      attention: 'gqa',
      numLayers: 20,
      hiddenSize: 2048,
      numHeads: 16,
      numKvHeads: 4,
      headDim: 128, // hidden / heads: the config has no head_dim
      intermediateSize: 8192,
      vocabSize: 50000,
      maxContext: 65536,
      numExperts: 0,
      moeIntermediateSize: 0,
      weightQuant: 'fp8',
      kvCacheDtype: 'bf16',
      slidingWindow: 0,
    });
  });

  it('reads MLA ranks, MoE keys and block-scaled fp8 (directory path, absolute)', () => {
    const m = resolveModel(join(fixtures, 'deepseek-like'));
    expect(m.id).toBe(join(fixtures, 'deepseek-like', 'config.json'));
    expect(m).toMatchObject({
      attention: 'mla',
      numExperts: 32,
      topK: 4,
      sharedExperts: 1,
      firstKDense: 2,
      moeIntermediateSize: 256,
      intermediateSize: 4096,
      kvLoraRank: 256,
      qLoraRank: 384,
      qkNopeHeadDim: 64,
      qkRopeHeadDim: 32,
      vHeadDim: 64,
      headDim: 96,
      mtpLayers: 1,
      weightQuant: 'fp8_block',
    });
  });

  it('reads layer_types sliding windows, experts_per_token and the mxfp4 expert format', () => {
    const m = resolveModel('gpt-oss-like', { baseDir: fixtures });
    expect(m).toMatchObject({
      headDim: 64,
      numExperts: 16,
      topK: 2,
      moeIntermediateSize: 720, // no moe_intermediate_size: experts are intermediate_size wide
      slidingWindow: 128,
      slidingWindowLayerFraction: 0.5,
      weightQuant: 'mxfp4',
      moeRoutingSkew: 'power_law_1.01',
    });
  });

  it('reads a multimodal text_config with linear-attention layers and a shared expert', () => {
    const m = resolveModel('qwen35-like', { baseDir: fixtures });
    expect(m).toMatchObject({ numLayers: 8, hiddenSize: 512, numExperts: 64, topK: 4, sharedExperts: 1, headDim: 128, vocabSize: 16000 });
    expect(m.intermediateSize).toBe(128);
    expect(m.linearAttention).toEqual({ layers: 6, numKeyHeads: 4, numValueHeads: 8, keyHeadDim: 64, valueHeadDim: 64, convKernel: 4 });
  });

  it('takes NVFP4 and an fp8 KV cache from a sibling hf_quant_config.json', () => {
    const m = resolveModel('nvfp4-modelopt', { baseDir: fixtures });
    expect(m.weightQuant).toBe('nvfp4');
    expect(m.kvCacheDtype).toBe('fp8');
  });

  it('names the file and the key when the config is unusable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spica-hf-'));
    const bad = join(dir, 'config.json');
    writeFileSync(bad, JSON.stringify({ hidden_size: 64, num_attention_heads: 4, vocab_size: 10, intermediate_size: 8 }));
    expect(() => resolveModel(bad)).toThrow(new RegExp(`${bad}.*num_hidden_layers`));
    writeFileSync(bad, JSON.stringify({ num_hidden_layers: 'two' }));
    expect(() => resolveModel(bad)).toThrow(/num_hidden_layers/);
    writeFileSync(bad, '{ not json');
    expect(() => resolveModel(bad)).toThrow(InputError);
    expect(() => resolveModel(dir + '/nope')).toThrow(/unknown model/);
  });

  it('rejects quantization methods it cannot size instead of assuming bf16', () => {
    const cfg = { num_hidden_layers: 2, hidden_size: 64, num_attention_heads: 4, vocab_size: 10, intermediate_size: 8 };
    expect(() => parseHfConfig({ ...cfg, quantization_config: { quant_method: 'bitsandbytes' } }, 'x.json')).toThrow(/bitsandbytes/);
    expect(parseHfConfig({ ...cfg, quantization_config: { quant_method: 'modelopt', quant_algo: 'FP8' } }, 'x.json').weightQuant).toBe('fp8');
    const ct = {
      quant_method: 'compressed-tensors',
      config_groups: { group_0: { weights: { num_bits: 4, type: 'int', strategy: 'group' } } },
    };
    expect(parseHfConfig({ ...cfg, quantization_config: ct }, 'x.json').weightQuant).toBe('nvfp4');
    expect(parseHfConfig(cfg, 'x.json').weightQuant).toBe('bf16');
  });

  it('ignores a sliding_window that use_sliding_window disables', () => {
    const cfg = { num_hidden_layers: 2, hidden_size: 64, num_attention_heads: 4, vocab_size: 10, intermediate_size: 8 };
    const m = parseHfConfig({ ...cfg, sliding_window: 4096, use_sliding_window: false, max_position_embeddings: 32768 }, 'x.json');
    expect([m.slidingWindow, m.slidingWindowLayerFraction]).toEqual([0, 0]);
    const w = parseHfConfig({ ...cfg, sliding_window: 4096, max_position_embeddings: 32768 }, 'x.json');
    expect([w.slidingWindow, w.slidingWindowLayerFraction]).toEqual([4096, 1]);
  });
});
