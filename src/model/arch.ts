// Architecture facts of one model: everything the memory estimator and the perf model need.
// Catalog entries (src/model/catalog.ts) and Hugging Face config.json files both produce this.

/**
 * Weight quantization of a checkpoint / deployment. 'mxfp4' is the gpt-oss checkpoint format: routed
 * experts in MXFP4 (e2m1 + one e8m0 scale per 32 = 4.25 bits), attention and dense weights bf16
 * (src/model/weights.ts `weightLayout`); it needs no FP4 tensor cores (Hopper runs w4a16 kernels).
 */
export const WEIGHT_QUANTS = ['bf16', 'fp8', 'fp8_block', 'nvfp4', 'mxfp4'] as const;
export const KV_CACHE_DTYPES = ['bf16', 'fp8'] as const;
export const BACKENDS = ['vllm', 'sglang', 'trtllm'] as const;
export type WeightQuant = (typeof WEIGHT_QUANTS)[number];
export type KvCacheDtype = (typeof KV_CACHE_DTYPES)[number];
export type Backend = (typeof BACKENDS)[number];

/** Token-to-expert skew of an MoE's routing, as the perf DB names its measured distributions. */
export type MoeRoutingSkew = 'balanced' | 'power_law_1.01' | 'power_law_1.2';

/** Attention flavour: plain multi-head / grouped-query, or DeepSeek-style multi-head latent attention. */
export type AttentionKind = 'gqa' | 'mla';

export interface ModelArch {
  /** Canonical Hugging Face id with org, e.g. `meta-llama/Llama-3.1-8B-Instruct`. */
  id: string;
  attention: AttentionKind;
  numLayers: number;
  hiddenSize: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  /** Dense FFN width (also used by the first `firstKDense` layers of MoE models). */
  intermediateSize: number;
  vocabSize: number;
  maxContext: number;
  /** 0 for dense models. */
  numExperts: number;
  topK: number;
  sharedExperts: number;
  moeIntermediateSize: number;
  /** MoE models whose first layers are dense (DeepSeek: 3). */
  firstKDense: number;
  /** MLA ranks (0 when attention is 'gqa'). */
  kvLoraRank: number;
  qLoraRank: number;
  qkRopeHeadDim: number;
  qkNopeHeadDim: number;
  vHeadDim: number;
  /** Sliding-window size in tokens, or 0 for full attention everywhere. */
  slidingWindow: number;
  /** Fraction of layers that use the sliding window (gpt-oss alternates: 0.5). 0 when slidingWindow is 0. */
  slidingWindowLayerFraction: number;
  /** Weight quantization of the published checkpoint. */
  weightQuant: WeightQuant;
  /** KV-cache dtype the checkpoint serves with by default. */
  kvCacheDtype: KvCacheDtype;
  /** Multi-token-prediction layers shipped with the checkpoint (DeepSeek: 1). */
  mtpLayers: number;
  /**
   * Routing skew the perf model assumes for the routed experts. Absent: by family, after AIC
   * (MLA families power_law_1.01, others power_law_1.2).
   */
  moeRoutingSkew?: MoeRoutingSkew;
  /** Whether the expert FFN is gated (SwiGLU: 3 GEMMs) — true for every supported family. */
  gatedFfn: boolean;
  /**
   * Hybrid models (Qwen3.5 Gated DeltaNet): layers whose token mixer is linear attention with a
   * fixed-size recurrent state instead of a KV cache. Absent = every layer is softmax attention.
   */
  linearAttention?: LinearAttentionSpec;
  /**
   * DeepSeek Sparse Attention (DSA: DeepSeek-V3.2, GLM-5): a lightning indexer in every layer scores
   * each past token and the attention reads only the `topK` best. Absent = dense attention.
   */
  sparseAttention?: SparseAttentionSpec;
}

/**
 * DeepSeek Sparse Attention (HF config keys `index_n_heads`, `index_head_dim`, `index_topk`). Per layer
 * the lightning indexer projects the query latent (q_lora) to `indexHeads` × `indexHeadDim` and the
 * hidden state to one `indexHeadDim` key (kept in its own FP8 cache), scores every past token with
 * ReLU(q·k) weighted per head, and the MLA attends to the `topK` highest-scoring tokens only
 * (every token while the context is no longer than `topK`).
 */
export interface SparseAttentionSpec {
  indexHeads: number;
  indexHeadDim: number;
  topK: number;
}

/** Gated-DeltaNet linear-attention layers (HF keys `linear_*`); they keep a per-sequence state, no KV. */
export interface LinearAttentionSpec {
  /** How many of `numLayers` are linear-attention layers (Qwen3.5: 3 of every 4). */
  layers: number;
  numKeyHeads: number;
  numValueHeads: number;
  keyHeadDim: number;
  valueHeadDim: number;
  /** Causal-conv kernel width; the conv state keeps `convKernel − 1` positions. */
  convKernel: number;
}

export function isMoe(m: Pick<ModelArch, 'numExperts'>): boolean {
  return m.numExperts > 0;
}
