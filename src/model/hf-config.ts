// Reads a Hugging Face `config.json` into ModelArch, key by key the way AI Configurator's
// `_parse_hf_config_json` does (aliases for layers/experts/top-k, head_dim fallback, text_config of
// multimodal configs, MLA ranks, quantization_config → weight quant).

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { InputError } from '../errors.js';
import type { KvCacheDtype, LinearAttentionSpec, ModelArch, WeightQuant } from './arch.js';

const count = z.number().int().nonnegative();
const maybeCount = count.nullable().optional();

const QuantizationConfigSchema = z.looseObject({
  quant_method: z.string().optional(),
  quant_algo: z.string().nullable().optional(),
  kv_cache_quant_algo: z.string().nullable().optional(),
  weight_block_size: z.array(z.number()).nullable().optional(),
  bits: z.number().optional(),
  config_groups: z
    .record(
      z.string(),
      z.looseObject({
        weights: z
          .looseObject({ num_bits: z.number().optional(), type: z.string().optional(), strategy: z.string().optional() })
          .nullable()
          .optional(),
      }),
    )
    .optional(),
});

/** The config.json keys Spica reads; everything else passes through untouched. */
export const HfConfigSchema = z.looseObject({
  _name_or_path: z.string().optional(),
  num_hidden_layers: maybeCount,
  n_layer: maybeCount,
  layers_block_type: z.array(z.string()).optional(),
  hybrid_override_pattern: z.string().optional(),
  hidden_size: maybeCount,
  num_attention_heads: maybeCount,
  num_key_value_heads: maybeCount,
  head_dim: maybeCount,
  attention_head_dim: maybeCount,
  intermediate_size: maybeCount,
  ffn_hidden_size: maybeCount,
  moe_intermediate_size: maybeCount,
  shared_expert_intermediate_size: maybeCount,
  num_local_experts: maybeCount,
  n_routed_experts: maybeCount,
  moe_num_experts: maybeCount,
  num_experts: maybeCount,
  num_experts_per_tok: maybeCount,
  top_k_experts: maybeCount,
  moe_top_k: maybeCount,
  experts_per_token: maybeCount,
  n_shared_experts: maybeCount,
  num_shared_experts: maybeCount,
  first_k_dense_replace: maybeCount,
  moe_layer_start_index: maybeCount,
  kv_lora_rank: maybeCount,
  q_lora_rank: maybeCount,
  qk_rope_head_dim: maybeCount,
  qk_nope_head_dim: maybeCount,
  v_head_dim: maybeCount,
  vocab_size: maybeCount,
  max_position_embeddings: maybeCount,
  sliding_window: maybeCount,
  use_sliding_window: z.boolean().optional(),
  sliding_window_pattern: maybeCount,
  layer_types: z.array(z.string()).optional(),
  full_attention_interval: maybeCount,
  linear_num_key_heads: maybeCount,
  linear_num_value_heads: maybeCount,
  linear_key_head_dim: maybeCount,
  linear_value_head_dim: maybeCount,
  linear_conv_kernel_dim: maybeCount,
  num_nextn_predict_layers: maybeCount,
  index_n_heads: maybeCount,
  index_head_dim: maybeCount,
  index_topk: maybeCount,
  quantization_config: QuantizationConfigSchema.optional(),
  text_config: z.record(z.string(), z.unknown()).optional(),
});
export type HfConfig = z.infer<typeof HfConfigSchema>;
type QuantizationConfig = z.infer<typeof QuantizationConfigSchema>;

/** `hf_quant_config.json` of ModelOpt checkpoints (NVFP4 / FP8 exports). */
export const HfQuantConfigSchema = z.looseObject({
  quantization: z
    .looseObject({ quant_algo: z.string().nullable().optional(), kv_cache_quant_algo: z.string().nullable().optional() })
    .optional(),
});
export type HfQuantConfig = z.infer<typeof HfQuantConfigSchema>;

function first(...values: (number | null | undefined)[]): number | undefined {
  for (const v of values) if (v !== undefined && v !== null) return v;
  return undefined;
}

function fromQuantAlgo(algo: string, source: string): WeightQuant {
  const a = algo.toUpperCase();
  // MIXED_PRECISION exports keep attention in fp8/bf16 but the experts, which dominate, in nvfp4.
  if (a === 'NVFP4' || a === 'MIXED_PRECISION' || a.startsWith('NVFP4')) return 'nvfp4';
  if (a === 'FP8_BLOCK_SCALES' || a === 'FP8_PB_WO') return 'fp8_block';
  if (a.startsWith('FP8')) return 'fp8';
  throw new InputError(`${source}: unsupported quant_algo '${algo}' (supported: NVFP4, MIXED_PRECISION, FP8, FP8_BLOCK_SCALES)`);
}

/**
 * Checkpoint weight quant. MXFP4 (gpt-oss: experts only, 17/32 B per weight) is its own format;
 * four-bit integer formats map to 'nvfp4', the same footprint (int4 with group-32 bf16 scales is
 * exactly 9/16 B).
 */
export function weightQuantFromConfig(qc: QuantizationConfig | undefined, hfQuant: HfQuantConfig | undefined, source: string): WeightQuant {
  const algo = hfQuant?.quantization?.quant_algo ?? qc?.quant_algo;
  if (algo) return fromQuantAlgo(algo, source);
  if (!qc?.quant_method) return 'bf16';
  const method = qc.quant_method.toLowerCase();
  switch (method) {
    case 'fp8':
      return qc.weight_block_size && qc.weight_block_size.length > 0 ? 'fp8_block' : 'fp8';
    case 'mxfp4':
      return 'mxfp4';
    case 'awq':
    case 'gptq':
      return 'nvfp4';
    case 'modelopt':
      // ModelOpt without quant_algo in config.json: the algo lives in hf_quant_config.json.
      throw new InputError(`${source}: quantization_config.quant_method 'modelopt' without quant_algo; put hf_quant_config.json next to config.json`);
    case 'compressed-tensors': {
      const groups = Object.values(qc.config_groups ?? {});
      const weights = groups.map((g) => g.weights).filter((w) => w != null);
      if (weights.some((w) => (w.num_bits ?? 16) <= 4)) return 'nvfp4';
      if (weights.some((w) => w.num_bits === 8 && w.type === 'float')) {
        return weights.some((w) => w.strategy === 'block') ? 'fp8_block' : 'fp8';
      }
      throw new InputError(`${source}: compressed-tensors config_groups describe no 4-bit or fp8 weights Spica can size`);
    }
    default:
      throw new InputError(
        `${source}: unsupported quantization_config.quant_method '${qc.quant_method}' (supported: fp8, mxfp4, awq, gptq, modelopt, compressed-tensors)`,
      );
  }
}

function kvDtypeFromConfig(qc: QuantizationConfig | undefined, hfQuant: HfQuantConfig | undefined): KvCacheDtype {
  const algo = hfQuant?.quantization?.kv_cache_quant_algo ?? qc?.kv_cache_quant_algo;
  return algo && algo.toUpperCase().startsWith('FP8') ? 'fp8' : 'bf16';
}

function required(value: number | undefined, key: string, source: string): number {
  if (value === undefined || value === 0) throw new InputError(`${source}: config.json lacks '${key}' (or it is 0)`);
  return value;
}

/** Parse an already-read config.json object. `source` names the file in error messages. */
export function parseHfConfig(raw: unknown, source: string, hfQuantRaw?: unknown): ModelArch {
  const top = HfConfigSchema.safeParse(raw);
  if (!top.success) {
    const issue = top.error.issues[0];
    throw new InputError(`${source}: invalid config.json field '${issue.path.join('.')}': ${issue.message}`);
  }
  // Multimodal configs keep the decoder under text_config; quantization_config stays top level.
  const merged = top.data.text_config ? HfConfigSchema.safeParse({ ...top.data, ...top.data.text_config }) : top;
  if (!merged.success) {
    const issue = merged.error.issues[0];
    throw new InputError(`${source}: invalid text_config field '${issue.path.join('.')}': ${issue.message}`);
  }
  const c = merged.data;
  let hfQuant: HfQuantConfig | undefined;
  if (hfQuantRaw !== undefined) {
    const q = HfQuantConfigSchema.safeParse(hfQuantRaw);
    if (!q.success) throw new InputError(`${source}: invalid hf_quant_config.json: ${q.error.issues[0].message}`);
    hfQuant = q.data;
  }

  const numLayers = required(
    first(c.num_hidden_layers, c.n_layer, c.layers_block_type?.length, c.hybrid_override_pattern?.length),
    'num_hidden_layers',
    source,
  );
  const hiddenSize = required(first(c.hidden_size), 'hidden_size', source);
  const numHeads = required(first(c.num_attention_heads), 'num_attention_heads', source);
  const vocabSize = required(first(c.vocab_size), 'vocab_size', source);
  const kvLoraRank = first(c.kv_lora_rank) ?? 0;
  const isMla = kvLoraRank > 0;
  const qkRopeHeadDim = first(c.qk_rope_head_dim) ?? 0;
  const qkNopeHeadDim = first(c.qk_nope_head_dim) ?? 0;
  const headDim = isMla
    ? qkNopeHeadDim + qkRopeHeadDim
    : (first(c.head_dim, c.attention_head_dim) ?? Math.floor(hiddenSize / numHeads));

  const numExperts = first(c.num_local_experts, c.n_routed_experts, c.moe_num_experts, c.num_experts) ?? 0;
  const topK = numExperts > 0 ? (first(c.num_experts_per_tok, c.top_k_experts, c.moe_top_k, c.experts_per_token) ?? 0) : 0;
  // Mixtral / MiniMax / gpt-oss have no moe_intermediate_size: their experts are intermediate_size wide.
  const moeIntermediateSize = numExperts > 0 ? (first(c.moe_intermediate_size, c.intermediate_size) ?? 0) : 0;
  const intermediateSize = required(first(c.intermediate_size, c.ffn_hidden_size, moeIntermediateSize), 'intermediate_size', source);
  const sharedWidth = first(c.shared_expert_intermediate_size) ?? 0;
  const sharedExperts =
    numExperts > 0
      ? (first(c.n_shared_experts, c.num_shared_experts) ??
        (sharedWidth > 0 && moeIntermediateSize > 0 ? Math.round(sharedWidth / moeIntermediateSize) : 0))
      : 0;

  const layerTypes = c.layer_types ?? [];
  const linearLayers =
    layerTypes.length > 0
      ? layerTypes.filter((t) => t === 'linear_attention').length
      : c.full_attention_interval && c.linear_num_value_heads
        ? numLayers - Math.floor(numLayers / c.full_attention_interval)
        : 0;
  let linearAttention: LinearAttentionSpec | undefined;
  if (linearLayers > 0) {
    linearAttention = {
      layers: linearLayers,
      numKeyHeads: required(first(c.linear_num_key_heads), 'linear_num_key_heads', source),
      numValueHeads: required(first(c.linear_num_value_heads), 'linear_num_value_heads', source),
      keyHeadDim: required(first(c.linear_key_head_dim), 'linear_key_head_dim', source),
      valueHeadDim: required(first(c.linear_value_head_dim), 'linear_value_head_dim', source),
      convKernel: first(c.linear_conv_kernel_dim) ?? 4,
    };
  }

  const maxContext = first(c.max_position_embeddings) ?? 0;
  let slidingWindow = first(c.sliding_window) ?? 0;
  let slidingWindowLayerFraction = 0;
  if (slidingWindow > 0 && c.use_sliding_window !== false && (maxContext === 0 || slidingWindow < maxContext)) {
    if (layerTypes.length > 0) {
      slidingWindowLayerFraction = layerTypes.filter((t) => t === 'sliding_attention').length / layerTypes.length;
    } else if (c.sliding_window_pattern && c.sliding_window_pattern > 1) {
      // Gemma-style: every `pattern`-th layer is global, the rest are windowed.
      slidingWindowLayerFraction = (c.sliding_window_pattern - 1) / c.sliding_window_pattern;
    } else {
      slidingWindowLayerFraction = 1;
    }
  }
  if (slidingWindowLayerFraction === 0) slidingWindow = 0;

  return {
    id: c._name_or_path && c._name_or_path.length > 0 ? c._name_or_path : source,
    attention: isMla ? 'mla' : 'gqa',
    numLayers,
    hiddenSize,
    numHeads,
    numKvHeads: first(c.num_key_value_heads) ?? numHeads,
    headDim,
    intermediateSize,
    vocabSize,
    maxContext,
    numExperts,
    topK,
    sharedExperts,
    moeIntermediateSize,
    firstKDense: numExperts > 0 ? (first(c.first_k_dense_replace, c.moe_layer_start_index) ?? 0) : 0,
    kvLoraRank,
    qLoraRank: first(c.q_lora_rank) ?? 0,
    qkRopeHeadDim,
    qkNopeHeadDim,
    vHeadDim: first(c.v_head_dim) ?? 0,
    slidingWindow,
    slidingWindowLayerFraction,
    weightQuant: weightQuantFromConfig(top.data.quantization_config, hfQuant, source),
    kvCacheDtype: kvDtypeFromConfig(top.data.quantization_config, hfQuant),
    mtpLayers: first(c.num_nextn_predict_layers) ?? 0,
    // Every family Spica models uses a gated (SwiGLU-style) FFN.
    gatedFfn: true,
    ...(linearAttention ? { linearAttention } : {}),
    // DeepSeek Sparse Attention (DeepseekV32 / GlmMoeDsa): the indexer's shape and the tokens it keeps.
    ...(isMla && c.index_topk && c.index_n_heads && c.index_head_dim
      ? { sparseAttention: { indexHeads: c.index_n_heads, indexHeadDim: c.index_head_dim, topK: c.index_topk } }
      : {}),
    // gpt-oss routing skew: the catalog's measured choice (src/model/known-models.ts).
    ...(isGptOss(raw) && numExperts > 0 ? { moeRoutingSkew: 'power_law_1.01' as const } : {}),
  };
}

function isGptOss(raw: unknown): boolean {
  const c = raw as { architectures?: unknown; model_type?: unknown };
  return c.model_type === 'gpt_oss' || (Array.isArray(c.architectures) && c.architectures.includes('GptOssForCausalLM'));
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new InputError(`cannot read ${path} as JSON: ${(err as Error).message}`);
  }
}

/** Load a config.json from disk (plus a sibling hf_quant_config.json when present). */
export function loadHfConfig(path: string): ModelArch {
  const quantPath = join(dirname(path), 'hf_quant_config.json');
  return parseHfConfig(readJson(path), path, existsSync(quantPath) ? readJson(quantPath) : undefined);
}
