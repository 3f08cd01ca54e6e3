// Architecture facts of the models Spica knows by name. Values are the public Hugging Face
// config.json facts (as tabulated in perfdb/models.csv, the AI Configurator model-config extract);
// the Instruct / vendor-quantized variants share their base model's architecture and differ only
// in the checkpoint's weight quantization. The catalog lookup (aliases, errors) is in catalog.ts.

import type { LinearAttentionSpec, ModelArch, SparseAttentionSpec, WeightQuant } from './arch.js';

interface DenseFacts {
  layers: number;
  hidden: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  intermediate: number;
  vocab: number;
  maxContext: number;
  slidingWindow?: number;
  slidingWindowLayerFraction?: number;
  linearAttention?: LinearAttentionSpec;
}

interface MoeFacts extends DenseFacts {
  experts: number;
  topK: number;
  moeIntermediate: number;
  sharedExperts?: number;
  firstKDense?: number;
}

interface MlaFacts extends Omit<MoeFacts, 'kvHeads' | 'headDim'> {
  kvLoraRank: number;
  qLoraRank: number;
  qkNopeHeadDim: number;
  qkRopeHeadDim: number;
  vHeadDim: number;
  mtpLayers: number;
}

function dense(id: string, f: DenseFacts, weightQuant: WeightQuant = 'bf16'): ModelArch {
  const window = f.slidingWindow ?? 0;
  return {
    id,
    attention: 'gqa',
    numLayers: f.layers,
    hiddenSize: f.hidden,
    numHeads: f.heads,
    numKvHeads: f.kvHeads,
    headDim: f.headDim,
    intermediateSize: f.intermediate,
    vocabSize: f.vocab,
    maxContext: f.maxContext,
    numExperts: 0,
    topK: 0,
    sharedExperts: 0,
    moeIntermediateSize: 0,
    firstKDense: 0,
    kvLoraRank: 0,
    qLoraRank: 0,
    qkRopeHeadDim: 0,
    qkNopeHeadDim: 0,
    vHeadDim: 0,
    slidingWindow: window,
    slidingWindowLayerFraction: window > 0 ? (f.slidingWindowLayerFraction ?? 1) : 0,
    weightQuant,
    kvCacheDtype: 'bf16',
    mtpLayers: 0,
    gatedFfn: true,
    ...(f.linearAttention ? { linearAttention: f.linearAttention } : {}),
  };
}

function moe(id: string, f: MoeFacts, weightQuant: WeightQuant = 'bf16'): ModelArch {
  return {
    ...dense(id, f, weightQuant),
    numExperts: f.experts,
    topK: f.topK,
    moeIntermediateSize: f.moeIntermediate,
    sharedExperts: f.sharedExperts ?? 0,
    firstKDense: f.firstKDense ?? 0,
  };
}

/**
 * DeepSeek-style MLA + MoE. `numKvHeads` = `numHeads` (the config value) and `headDim` is the
 * q/k head width `qk_nope + qk_rope` (the config has no head_dim; hidden/heads would be wrong).
 */
function mla(id: string, f: MlaFacts, weightQuant: WeightQuant): ModelArch {
  return {
    ...moe(id, { ...f, kvHeads: f.heads, headDim: f.qkNopeHeadDim + f.qkRopeHeadDim }, weightQuant),
    attention: 'mla',
    kvLoraRank: f.kvLoraRank,
    qLoraRank: f.qLoraRank,
    qkNopeHeadDim: f.qkNopeHeadDim,
    qkRopeHeadDim: f.qkRopeHeadDim,
    vHeadDim: f.vHeadDim,
    mtpLayers: f.mtpLayers,
  };
}

/** Same architecture, another published checkpoint (Instruct tune or vendor quantization). */
function variant(base: ModelArch, id: string, weightQuant: WeightQuant = base.weightQuant): ModelArch {
  return { ...base, id, weightQuant };
}

// ---- Llama 3.x (config has no head_dim: hidden / heads = 128) ----
const LLAMA_8B: DenseFacts = { layers: 32, hidden: 4096, heads: 32, kvHeads: 8, headDim: 128, intermediate: 14336, vocab: 128256, maxContext: 131072 };
const LLAMA_70B: DenseFacts = { layers: 80, hidden: 8192, heads: 64, kvHeads: 8, headDim: 128, intermediate: 28672, vocab: 128256, maxContext: 131072 };
const LLAMA_405B: DenseFacts = { layers: 126, hidden: 16384, heads: 128, kvHeads: 8, headDim: 128, intermediate: 53248, vocab: 128256, maxContext: 131072 };
const llama8b = dense('meta-llama/Llama-3.1-8B', LLAMA_8B);
const llama70b = dense('meta-llama/Llama-3.1-70B', LLAMA_70B);
const llama405b = dense('meta-llama/Llama-3.1-405B', LLAMA_405B);

// ---- Qwen3 dense / MoE (config head_dim 128; MoE models use experts in every layer) ----
const qwen3Dense = (layers: number, hidden: number, heads: number, intermediate: number, maxContext = 40960): DenseFacts => ({
  layers, hidden, heads, kvHeads: 8, headDim: 128, intermediate, vocab: 151936, maxContext,
});
const qwen3_32b = dense('Qwen/Qwen3-32B', qwen3Dense(64, 5120, 64, 25600));
const QWEN3_30B_A3B: MoeFacts = { layers: 48, hidden: 2048, heads: 32, kvHeads: 4, headDim: 128, intermediate: 6144, vocab: 151936, maxContext: 40960, experts: 128, topK: 8, moeIntermediate: 768 };
const QWEN3_235B_A22B: MoeFacts = { layers: 94, hidden: 4096, heads: 64, kvHeads: 4, headDim: 128, intermediate: 12288, vocab: 151936, maxContext: 40960, experts: 128, topK: 8, moeIntermediate: 1536 };
const qwen3_30b = moe('Qwen/Qwen3-30B-A3B', QWEN3_30B_A3B);
const qwen3_235b = moe('Qwen/Qwen3-235B-A22B', QWEN3_235B_A22B);

// ---- Qwen3.5: hybrid, 3 of every 4 layers are Gated DeltaNet (linear attention), 1 is gated full
// attention; MoE with one shared expert of the routed-expert width. Linear-attention head counts
// come from the Qwen3.5 model cards (models.csv does not carry them). ----
const gdn = (layers: number, numValueHeads: number): LinearAttentionSpec => ({
  layers: (layers * 3) / 4, numKeyHeads: 16, numValueHeads, keyHeadDim: 128, valueHeadDim: 128, convKernel: 4,
});
const qwen35Moe = (layers: number, hidden: number, heads: number, experts: number, topK: number, moeIntermediate: number, valueHeads: number): MoeFacts => ({
  layers, hidden, heads, kvHeads: 2, headDim: 256, intermediate: moeIntermediate, vocab: 248320, maxContext: 262144,
  experts, topK, moeIntermediate, sharedExperts: 1, linearAttention: gdn(layers, valueHeads),
});
const qwen35_397b = moe('Qwen/Qwen3.5-397B-A17B', qwen35Moe(60, 4096, 32, 512, 10, 1024, 64));
const qwen35_122b = moe('Qwen/Qwen3.5-122B-A10B', qwen35Moe(48, 3072, 32, 256, 8, 1024, 64));
const qwen35_35b = moe('Qwen/Qwen3.5-35B-A3B', qwen35Moe(40, 2048, 16, 256, 8, 512, 32));
const qwen35_27b = dense('Qwen/Qwen3.5-27B', {
  layers: 64, hidden: 5120, heads: 24, kvHeads: 4, headDim: 256, intermediate: 17408, vocab: 248320, maxContext: 262144,
  linearAttention: gdn(64, 48),
});

// ---- DeepSeek-V3 family (MLA + MoE, 3 dense layers, 1 MTP layer; checkpoints are fp8 128×128 blocks).
// DeepSeek-V3.2 is the same body with DeepSeek Sparse Attention (config.json index_n_heads 64,
// index_head_dim 128, index_topk 2048; the DeepSeek-V3.2 report): a lightning indexer per layer with
// its own FP8 key cache, whose top-2048 tokens are all the MLA attends to (engine.ts, kv-cache.ts). ----
const DEEPSEEK_V3: MlaFacts = {
  layers: 61, hidden: 7168, heads: 128, intermediate: 18432, vocab: 129280, maxContext: 163840,
  experts: 256, topK: 8, moeIntermediate: 2048, sharedExperts: 1, firstKDense: 3,
  kvLoraRank: 512, qLoraRank: 1536, qkNopeHeadDim: 128, qkRopeHeadDim: 64, vHeadDim: 128, mtpLayers: 1,
};
const deepseekV3 = mla('deepseek-ai/DeepSeek-V3', DEEPSEEK_V3, 'fp8_block');
const DSA_V32: SparseAttentionSpec = { indexHeads: 64, indexHeadDim: 128, topK: 2048 };
const deepseekV32: ModelArch = { ...variant(deepseekV3, 'deepseek-ai/DeepSeek-V3.2'), sparseAttention: DSA_V32 };

// ---- Kimi K2.x: DeepSeek-V3 architecture with 64 heads, 384 experts, 1 dense layer, no MTP.
// Kimi-K2.5 ships int4 weight-only experts (compressed-tensors, group 32 with bf16 scales =
// 0.5 + 2/32 = 9/16 bytes per weight), which is byte-for-byte the nvfp4 footprint, so it is
// catalogued as 'nvfp4' (memory exact; compute is weight-only int4 in reality). ----
const KIMI_K2: MlaFacts = {
  ...DEEPSEEK_V3, heads: 64, vocab: 163840, maxContext: 131072, experts: 384, firstKDense: 1, mtpLayers: 0,
};
const kimiK2 = mla('moonshotai/Kimi-K2-Instruct', KIMI_K2, 'fp8_block');
const kimiK25 = mla('moonshotai/Kimi-K2.5', { ...KIMI_K2, maxContext: 262144 }, 'nvfp4');

// ---- GLM-5 / 5.1 (GlmMoeDsa): MLA + MoE + DeepSeek Sparse Attention. The indexer has 32 heads of
// 128 (config.json index_n_heads / index_head_dim; the GLM-5 report's "Indexer Attn Heads 32, Indexer
// Head Dim 128") and keeps the top 2048 tokens (index_topk), as DeepSeek-V3.2's with half its heads. ----
const GLM5: MlaFacts = {
  layers: 78, hidden: 6144, heads: 64, intermediate: 12288, vocab: 154880, maxContext: 202752,
  experts: 256, topK: 8, moeIntermediate: 2048, sharedExperts: 1, firstKDense: 3,
  kvLoraRank: 512, qLoraRank: 2048, qkNopeHeadDim: 192, qkRopeHeadDim: 64, vHeadDim: 256, mtpLayers: 1,
};
const DSA_GLM5: SparseAttentionSpec = { indexHeads: 32, indexHeadDim: 128, topK: 2048 };
const glm5: ModelArch = { ...mla('zai-org/GLM-5', GLM5, 'bf16'), sparseAttention: DSA_GLM5 };
const glm51: ModelArch = { ...mla('zai-org/GLM-5.1', GLM5, 'bf16'), sparseAttention: DSA_GLM5 };

// ---- MiniMax-M2.x: MoE in every layer, expert width = config intermediate_size, fp8 blocks. ----
const MINIMAX_M2: MoeFacts = {
  layers: 62, hidden: 3072, heads: 48, kvHeads: 8, headDim: 128, intermediate: 1536, vocab: 200064, maxContext: 196608,
  experts: 256, topK: 8, moeIntermediate: 1536,
};
const minimaxM25 = moe('MiniMaxAI/MiniMax-M2.5', MINIMAX_M2, 'fp8_block');
const minimaxM27 = moe('MiniMaxAI/MiniMax-M2.7', { ...MINIMAX_M2, maxContext: 204800 }, 'fp8_block');

// ---- gpt-oss: alternating sliding-window (128) / full attention layers. The checkpoint's experts
// are MXFP4 (4-bit e2m1 + one e8m0 scale per 32 = 4.25 bits), attention and embeddings bf16. ----
const GPT_OSS: MoeFacts = {
  layers: 36, hidden: 2880, heads: 64, kvHeads: 8, headDim: 64, intermediate: 2880, vocab: 201088, maxContext: 131072,
  experts: 128, topK: 4, moeIntermediate: 2880, slidingWindow: 128, slidingWindowLayerFraction: 0.5,
};
// Routing: the 66 measured gpt-oss agg deployments on Hopper fit the near-uniform power_law_1.01
// (steady-state TPOT median error 21 % → 14 % against the generic MoE family's power_law_1.2).
const gptOss120b: ModelArch = { ...moe('openai/gpt-oss-120b', GPT_OSS, 'mxfp4'), moeRoutingSkew: 'power_law_1.01' };
const gptOss20b: ModelArch = { ...moe('openai/gpt-oss-20b', { ...GPT_OSS, layers: 24, experts: 32 }, 'mxfp4'), moeRoutingSkew: 'power_law_1.01' };

// ---- Mixtral (config sliding_window null: full attention; expert width = intermediate_size) ----
const MIXTRAL_8X7B: MoeFacts = {
  layers: 32, hidden: 4096, heads: 32, kvHeads: 8, headDim: 128, intermediate: 14336, vocab: 32000, maxContext: 32768,
  experts: 8, topK: 2, moeIntermediate: 14336,
};
const mixtral8x7b = moe('mistralai/Mixtral-8x7B-v0.1', MIXTRAL_8X7B);
const mixtral8x22b = moe('mistralai/Mixtral-8x22B-v0.1', {
  ...MIXTRAL_8X7B, layers: 56, hidden: 6144, heads: 48, intermediate: 16384, moeIntermediate: 16384, maxContext: 65536,
});

export const KNOWN_MODELS: readonly ModelArch[] = [
  llama8b,
  variant(llama8b, 'meta-llama/Llama-3.1-8B-Instruct'),
  variant(llama8b, 'nvidia/Llama-3.1-8B-Instruct-FP8', 'fp8'),
  llama70b,
  variant(llama70b, 'meta-llama/Llama-3.1-70B-Instruct'),
  variant(llama70b, 'nvidia/Llama-3.1-70B-Instruct-FP8', 'fp8'),
  variant(llama70b, 'meta-llama/Llama-3.3-70B-Instruct'),
  llama405b,
  variant(llama405b, 'meta-llama/Llama-3.1-405B-Instruct'),

  dense('Qwen/Qwen3-0.6B', qwen3Dense(28, 1024, 16, 3072)),
  dense('Qwen/Qwen3-1.7B', qwen3Dense(28, 2048, 16, 6144)),
  dense('Qwen/Qwen3-8B', qwen3Dense(36, 4096, 32, 12288)),
  qwen3_32b,
  variant(qwen3_32b, 'Qwen/Qwen3-32B-FP8', 'fp8_block'),
  variant(qwen3_32b, 'Qwen/Qwen3-32B-FP8-Static-PerTensor', 'fp8'),
  variant(qwen3_32b, 'nvidia/Qwen3-32B-NVFP4', 'nvfp4'),
  qwen3_30b,
  variant(qwen3_30b, 'Qwen/Qwen3-30B-A3B-FP8', 'fp8_block'),
  qwen3_235b,
  variant(qwen3_235b, 'Qwen/Qwen3-235B-A22B-FP8', 'fp8_block'),
  variant(qwen3_235b, 'nvidia/Qwen3-235B-A22B-NVFP4', 'nvfp4'),
  moe('Qwen/Qwen3-Coder-480B-A35B-Instruct', {
    layers: 62, hidden: 6144, heads: 96, kvHeads: 8, headDim: 128, intermediate: 8192, vocab: 151936, maxContext: 262144,
    experts: 160, topK: 8, moeIntermediate: 2560,
  }),
  // Qwen3-VL: the text decoder's facts (vision tower weights, < 1 % of the total, not counted).
  dense('Qwen/Qwen3-VL-2B-Instruct', qwen3Dense(28, 2048, 16, 6144, 262144)),
  dense('Qwen/Qwen3-VL-4B-Instruct', qwen3Dense(36, 2560, 32, 9728, 262144)),
  dense('Qwen/Qwen3-VL-8B-Instruct', qwen3Dense(36, 4096, 32, 12288, 262144)),
  dense('Qwen/Qwen3-VL-32B-Instruct', qwen3Dense(64, 5120, 64, 25600, 262144)),
  dense('Qwen/Qwen3-VL-32B-Thinking', qwen3Dense(64, 5120, 64, 25600, 262144)),
  moe('Qwen/Qwen3-VL-30B-A3B-Instruct', { ...QWEN3_30B_A3B, maxContext: 262144 }),
  moe('Qwen/Qwen3-VL-235B-A22B-Instruct', { ...QWEN3_235B_A22B, maxContext: 262144 }),

  qwen35_397b,
  variant(qwen35_397b, 'nvidia/Qwen3.5-397B-A17B-NVFP4', 'nvfp4'),
  qwen35_122b,
  variant(qwen35_122b, 'nvidia/Qwen3.5-122B-A10B-NVFP4', 'nvfp4'),
  qwen35_35b,
  qwen35_27b,

  deepseekV3,
  variant(deepseekV3, 'deepseek-ai/DeepSeek-R1'),
  variant(deepseekV3, 'nvidia/DeepSeek-R1-NVFP4', 'nvfp4'),
  variant(deepseekV3, 'nvidia/DeepSeek-V3.1-NVFP4', 'nvfp4'),
  deepseekV32,
  variant(deepseekV32, 'nvidia/DeepSeek-V3.2-NVFP4', 'nvfp4'),

  kimiK2,
  kimiK25,
  variant(kimiK25, 'nvidia/Kimi-K2.5-NVFP4', 'nvfp4'),
  variant(kimiK25, 'nvidia/Kimi-K2.6-NVFP4', 'nvfp4'),
  variant(kimiK25, 'nvidia/Kimi-K2.7-Code-NVFP4', 'nvfp4'),

  glm5,
  variant(glm5, 'zai-org/GLM-5-FP8', 'fp8_block'),
  variant(glm5, 'nvidia/GLM-5-NVFP4', 'nvfp4'),
  glm51,
  variant(glm51, 'zai-org/GLM-5.1-FP8', 'fp8_block'),
  variant(glm51, 'nvidia/GLM-5.1-NVFP4', 'nvfp4'),

  minimaxM25,
  variant(minimaxM25, 'nvidia/MiniMax-M2.5-NVFP4', 'nvfp4'),
  minimaxM27,
  variant(minimaxM25, 'nvidia/MiniMax-M2.7-NVFP4', 'nvfp4'),

  gptOss120b,
  gptOss20b,

  mixtral8x7b,
  variant(mixtral8x7b, 'mistralai/Mixtral-8x7B-Instruct-v0.1'),
  mixtral8x22b,
];

/**
 * Extra spellings → canonical id. Bare names (without org) and case differences are handled by
 * the catalog itself; these cover renamed orgs and older repository names.
 */
export const MODEL_ALIASES: Readonly<Record<string, string>> = {
  'meta-llama/Meta-Llama-3.1-8B': 'meta-llama/Llama-3.1-8B',
  'meta-llama/Meta-Llama-3.1-8B-Instruct': 'meta-llama/Llama-3.1-8B-Instruct',
  'meta-llama/Meta-Llama-3.1-70B': 'meta-llama/Llama-3.1-70B',
  'meta-llama/Meta-Llama-3.1-70B-Instruct': 'meta-llama/Llama-3.1-70B-Instruct',
  'meta-llama/Meta-Llama-3.1-405B': 'meta-llama/Llama-3.1-405B',
  'meta-llama/Meta-Llama-3.1-405B-Instruct': 'meta-llama/Llama-3.1-405B-Instruct',
  // GLM moved from the zhipuai / THUDM orgs to zai-org.
  'zhipuai/GLM-5': 'zai-org/GLM-5',
  'zhipuai/GLM-5.1': 'zai-org/GLM-5.1',
  'THUDM/GLM-5': 'zai-org/GLM-5',
  'llama-3.3-70b': 'meta-llama/Llama-3.3-70B-Instruct',
  'mixtral-8x7b': 'mistralai/Mixtral-8x7B-Instruct-v0.1',
  'mixtral-8x22b': 'mistralai/Mixtral-8x22B-v0.1',
};
