// Weight bytes of a model, whole and per GPU for a parallel shape. GEMM weights follow AI
// Configurator's op shapes (SDK/models/*.py): attention split by tp (MLA: the fused q_a/kv_a
// down-projection is replicated, the up/out projections split), dense FFN and shared experts
// split by tp, routed experts split by moe_tp × moe_ep, embedding + LM head vocab-parallel over tp
// and kept in bf16. Norms, biases and the router are < 0.1 % and ignored.

import { InputError } from '../errors.js';
import type { ModelArch, WeightQuant } from './arch.js';
import { checkpointScaling } from './checkpoint-scaling.js';
import type { ParallelShape } from '../parallel/shape.js';

/**
 * Bytes per weight element, scales included (nvfp4: 4 bits + one fp8 scale per 16 = 9/16 B;
 * mxfp4: 4 bits + one e8m0 scale per 32 = 17/32 B).
 */
export const WEIGHT_BYTES: Readonly<Record<WeightQuant, number>> = { bf16: 2, fp8: 1, fp8_block: 1, nvfp4: 9 / 16, mxfp4: 17 / 32 };

const EMBEDDING_BYTES = 2;

/** Quant of the linear layers (attention, dense FFN, shared experts) and of the routed experts. */
export interface WeightQuants {
  linear: WeightQuant;
  moe: WeightQuant;
}

/**
 * Storage of each weight class when serving `model` at `quant` (routed experts at `moeQuant`,
 * default `quant`), after the checkpoint rule (`checkpointScaling`). 'mxfp4' is an expert-only
 * format: attention, dense FFN and shared experts stay bf16, as in the gpt-oss checkpoints.
 */
export function weightLayout(model: ModelArch, quant: WeightQuant, moeQuant: WeightQuant = quant): WeightQuants {
  const q = checkpointScaling(quant, model.weightQuant);
  const moe = checkpointScaling(moeQuant, model.weightQuant);
  if (model.numExperts === 0 && q === 'mxfp4') {
    throw new InputError(`quantization mxfp4 is an MoE expert format (gpt-oss checkpoints); ${model.id} has no experts — use bf16, fp8, fp8_block or nvfp4`);
  }
  return { linear: q === 'mxfp4' ? 'bf16' : q, moe };
}

type WeightShape = Pick<ParallelShape, 'tp' | 'pp' | 'moe_tp' | 'moe_ep'>;

const ONE_GPU: WeightShape = { tp: 1, pp: 1, moe_tp: 1, moe_ep: 1 };

/** Elements of one softmax-attention layer on one GPU. */
function attentionElements(m: ModelArch, tp: number): number {
  const h = m.hiddenSize;
  const headsPerGpu = Math.ceil(m.numHeads / tp);
  if (m.attention === 'mla') {
    const qkHead = m.qkNopeHeadDim + m.qkRopeHeadDim;
    // Replicated latent down-projection (q_a ‖ kv_a ‖ k_rope); without q_lora, q is a full tp-split GEMM.
    const fusedA = h * (m.qLoraRank + m.kvLoraRank + m.qkRopeHeadDim);
    const qUp = m.qLoraRank > 0 ? m.qLoraRank * headsPerGpu * qkHead : h * headsPerGpu * qkHead;
    const kvUp = m.kvLoraRank * headsPerGpu * (m.qkNopeHeadDim + m.vHeadDim);
    const out = headsPerGpu * m.vHeadDim * h;
    return fusedA + qUp + kvUp + out;
  }
  // KV heads are replicated when tp exceeds their count.
  const q = h * headsPerGpu * m.headDim;
  const kv = 2 * h * Math.ceil(m.numKvHeads / tp) * m.headDim;
  const out = headsPerGpu * m.headDim * h;
  return q + kv + out;
}

/** Elements of one Gated-DeltaNet layer on one GPU (qkvz + beta/alpha in-projection, out-projection). */
function linearAttentionElements(m: ModelArch, tp: number): number {
  const la = m.linearAttention;
  if (!la) return 0;
  const keyDim = Math.ceil(la.numKeyHeads / tp) * la.keyHeadDim;
  const valueHeads = Math.ceil(la.numValueHeads / tp);
  const valueDim = valueHeads * la.valueHeadDim;
  return m.hiddenSize * (2 * keyDim + 2 * valueDim + 2 * valueHeads) + valueDim * m.hiddenSize;
}

function ffnGemms(m: ModelArch): number {
  return m.gatedFfn ? 3 : 2;
}

/** Bytes of all decoder layers on one GPU before pipeline splitting. */
function layerBytes(m: ModelArch, s: WeightShape, q: WeightQuants): number {
  const lin = WEIGHT_BYTES[q.linear];
  const linearLayers = m.linearAttention?.layers ?? 0;
  const attention =
    (m.numLayers - linearLayers) * attentionElements(m, s.tp) + linearLayers * linearAttentionElements(m, s.tp);
  const g = ffnGemms(m);
  const denseFfnPerLayer = (g * m.hiddenSize * m.intermediateSize) / s.tp;
  if (m.numExperts === 0) return (attention + m.numLayers * denseFfnPerLayer) * lin;

  const moeLayers = m.numLayers - m.firstKDense;
  const expertElems = g * m.hiddenSize * m.moeIntermediateSize;
  const routed = (moeLayers * m.numExperts * expertElems) / (s.moe_tp * s.moe_ep);
  const shared = (moeLayers * m.sharedExperts * expertElems) / s.tp;
  return (attention + m.firstKDense * denseFfnPerLayer + shared) * lin + routed * WEIGHT_BYTES[q.moe];
}

/**
 * Weight bytes on the most loaded GPU of a worker: ⌈layers/pp⌉ layers' worth, plus the embedding
 * or LM head (both when pp = 1), vocab-parallel over tp. Attention-DP ranks each hold a copy.
 */
export function weightBytesPerGpu(m: ModelArch, s: WeightShape, q: WeightQuants): number {
  // MXFP4 only ever stores experts; linear layers beside MXFP4 experts are bf16.
  const layers = layerBytes(m, s, q.linear === 'mxfp4' ? { linear: 'bf16', moe: q.moe } : q);
  const stageShare = s.pp > 1 ? Math.ceil(m.numLayers / s.pp) / m.numLayers : 1;
  const vocabMatrices = s.pp > 1 ? 1 : 2;
  const embedding = (vocabMatrices * m.vocabSize * m.hiddenSize * EMBEDDING_BYTES) / s.tp;
  return layers * stageShare + embedding;
}

/** Bytes of one full copy of the model's weights at `quant` (MTP layers excluded). */
export function totalWeightBytes(m: ModelArch, quant: WeightQuant | WeightQuants = m.weightQuant): number {
  const q = typeof quant === 'string' ? weightLayout(m, quant) : quant;
  return weightBytesPerGpu(m, ONE_GPU, q);
}
