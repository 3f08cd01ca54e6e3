// KV-cache bytes: per token for the whole model, per token and per sequence on one GPU.
//
// Windowed and linear-attention layers do not grow with the sequence, so they are kept out of
// the per-token cost: a sliding-window layer holds at most `window` tokens per sequence, a
// Gated-DeltaNet layer a fixed recurrent + conv state. Both are charged per *sequence*
// (kvBytesPerSequencePerGpu) and the memory estimator reserves them for the engine's maximum
// number of running sequences before dividing the rest of the KV budget into tokens. This matches
// how vLLM's hybrid allocator sizes those layers' pools, and keeps `kvBytesPerToken` equal to what
// a paged full-attention block costs.

import type { Backend, KvCacheDtype, ModelArch, WeightQuant } from './arch.js';
import type { ParallelShape } from '../parallel/shape.js';
import { checkpointScaling } from './checkpoint-scaling.js';

export const KV_BYTES: Readonly<Record<KvCacheDtype, number>> = { bf16: 2, fp8: 1 };

/**
 * The KV-cache dtype an engine runs with when the config names none (its `auto`), serving `model` at
 * `quant` (default the checkpoint's own). vLLM and SGLang store the model's dtype unless told
 * otherwise (the checkpoint's own FP8 KV declaration aside, `model.kvCacheDtype`). TRT-LLM's
 * `kv_cache_config.dtype: auto` inherits the checkpoint's `kv_cache_quant_algo`, and the checkpoints it
 * serves at per-tensor FP8 or NVFP4 are ModelOpt exports (the `nvidia/*-FP8` / `*-FP4` releases; ModelOpt's
 * PTQ writes an FP8 KV cache unless told otherwise), so those run an FP8 KV cache: twice the tokens per
 * byte, which is what lets TRT-LLM's whole-request reservation (GUARANTEED_NO_EVICT) admit the measured
 * concurrency (e.g. Qwen3-32B FP8, H100, tp1, 4096/256 at 64 clients: 270k tokens reserved against 155k
 * of bf16 KV). Block-scaled FP8 (DeepSeek's, Qwen's own FP8 releases) and MXFP4 (gpt-oss) checkpoints
 * are not ModelOpt's and keep the model's dtype.
 */
export function defaultKvCacheDtype(model: ModelArch, backend: Backend, quant: WeightQuant = model.weightQuant): KvCacheDtype {
  if (model.kvCacheDtype === 'fp8') return 'fp8';
  const q = checkpointScaling(quant, model.weightQuant);
  return backend === 'trtllm' && (q === 'fp8' || q === 'nvfp4') ? 'fp8' : model.kvCacheDtype;
}

/**
 * Linear-attention state dtypes: the recurrent (SSM) state in fp32 — Qwen3.5 / Qwen3-Next config.json
 * set mamba_ssm_dtype = "float32", SGLang's --mamba-ssm-dtype defaults to float32 and vLLM follows the
 * checkpoint — the causal-conv state in bf16. (The perf model's decode state traffic, engine.ts, uses
 * the same sizes.)
 */
const RECURRENT_STATE_BYTES = 4;
const CONV_STATE_BYTES = 2;

type KvShape = Pick<ParallelShape, 'tp' | 'pp'>;

/** Layer counts by token mixer: full attention (paged KV), sliding window, linear attention. */
export function attentionLayerSplit(m: ModelArch): { full: number; windowed: number; linear: number } {
  const linear = m.linearAttention?.layers ?? 0;
  const softmax = m.numLayers - linear;
  const windowed = m.slidingWindow > 0 ? Math.round(softmax * m.slidingWindowLayerFraction) : 0;
  return { full: softmax - windowed, windowed, linear };
}

/** KV elements one token adds to one attention layer on one GPU. MLA's latent is not sharded by tp. */
function elementsPerTokenPerLayer(m: ModelArch, tp: number): number {
  if (m.attention === 'mla') return m.kvLoraRank + m.qkRopeHeadDim;
  return 2 * Math.ceil(m.numKvHeads / tp) * m.headDim;
}

/**
 * Bytes one token adds to one layer's sparse-attention indexer cache (DeepSeek Sparse Attention): its
 * key in FP8 plus one fp32 scale per 128 elements, whatever the KV-cache dtype — 128 + 4 = 132 for the
 * 128-wide keys of DeepSeek-V3.2 and GLM-5 (SGLang's NSA pool stores exactly this per token, vLLM's
 * indexer cache likewise). The indexer is replicated on every tensor-parallel rank, like MLA's latent.
 * 0 for models without DSA.
 */
export function indexerBytesPerTokenPerLayer(m: Pick<ModelArch, 'sparseAttention'>): number {
  const d = m.sparseAttention;
  return d ? d.indexHeadDim + 4 * Math.ceil(d.indexHeadDim / 128) : 0;
}

/** Whole-model KV bytes per token (all full-attention layers, unsharded). Llama-3.1-8B bf16: 131072. */
export function kvBytesPerToken(m: ModelArch, kvDtype: KvCacheDtype): number {
  return attentionLayerSplit(m).full * (elementsPerTokenPerLayer(m, 1) * KV_BYTES[kvDtype] + indexerBytesPerTokenPerLayer(m));
}

/** KV bytes per token on the most loaded GPU: ⌈kv_heads/tp⌉ heads (GQA) × ⌈layers/pp⌉ (+ the DSA indexer's keys). */
export function kvBytesPerTokenPerGpu(m: ModelArch, kvDtype: KvCacheDtype, s: KvShape): number {
  const layers = Math.ceil(attentionLayerSplit(m).full / s.pp);
  return layers * (elementsPerTokenPerLayer(m, s.tp) * KV_BYTES[kvDtype] + indexerBytesPerTokenPerLayer(m));
}

/** Fixed per-sequence bytes on one GPU: sliding-window KV at full window plus linear-attention state. */
export function kvBytesPerSequencePerGpu(m: ModelArch, kvDtype: KvCacheDtype, s: KvShape): number {
  const split = attentionLayerSplit(m);
  const windowed = Math.ceil(split.windowed / s.pp) * m.slidingWindow * elementsPerTokenPerLayer(m, s.tp) * KV_BYTES[kvDtype];
  const la = m.linearAttention;
  if (!la || split.linear === 0) return windowed;
  const valueHeads = Math.ceil(la.numValueHeads / s.tp);
  const recurrent = valueHeads * la.keyHeadDim * la.valueHeadDim;
  const convChannels = 2 * Math.ceil(la.numKeyHeads / s.tp) * la.keyHeadDim + valueHeads * la.valueHeadDim;
  const conv = (la.convKernel - 1) * convChannels;
  return windowed + Math.ceil(split.linear / s.pp) * (recurrent * RECURRENT_STATE_BYTES + conv * CONV_STATE_BYTES);
}
