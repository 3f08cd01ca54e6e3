// Per-GPU memory of one worker and the KV capacity it leaves, after AI Configurator's
// `_get_memory_usage` / `kv_cache_budget_bytes` (facts §7). Pure: every input is an argument.

import { InputError } from '../errors.js';
import type { SystemSpec } from '../hardware/system.js';
import type { ParallelShape } from '../parallel/shape.js';
import type { Backend, KvCacheDtype, ModelArch, WeightQuant } from './arch.js';
import { kvBytesPerSequencePerGpu, kvBytesPerToken, kvBytesPerTokenPerGpu } from './kv-cache.js';
import { totalWeightBytes, weightBytesPerGpu, weightLayout } from './weights.js';

export { kvBytesPerToken, totalWeightBytes };

export interface MemoryInput {
  model: ModelArch;
  system: SystemSpec;
  shape: ParallelShape;
  backend: Backend;
  /** Serving quantization (attention / dense FFN GEMMs; 'mxfp4' = MXFP4 experts, bf16 rest — `weightLayout`). */
  weightQuant: WeightQuant;
  /** Quant of the routed experts; defaults to `weightQuant`. */
  moeQuant?: WeightQuant;
  kvDtype: KvCacheDtype;
  /** Fraction of HBM the engine may use (seed-pinned 0.9 for every backend, Clarification C). */
  gpuMemoryUtilization?: number;
  /** Tokens of the largest forward pass; sizes the activation reservation. */
  maxNumBatchedTokens?: number;
  /**
   * Running sequences the engine admits; only sliding-window and linear-attention layers (fixed
   * bytes per sequence) use it. Default 256, vLLM's max_num_seqs.
   */
  maxNumSeqs?: number;
}

export interface MemoryEstimate {
  weightsBytesPerGpu: number;
  activationBytesPerGpu: number;
  /** NCCL buffers + CUDA context / runtime reserve. */
  reservedBytesPerGpu: number;
  /** Bytes left for the KV cache on each GPU (0 when the rest does not fit). */
  kvBudgetBytesPerGpu: number;
  kvBytesPerTokenPerGpu: number;
  /** Fixed per-sequence bytes (window KV, linear-attention state) already taken out of the budget. */
  kvBytesPerSequencePerGpu: number;
  /** Tokens one attention-DP rank (tp GPUs) can keep in its KV cache. */
  kvCapacityTokensPerRank: number;
  fits: boolean;
}

export const DEFAULT_GPU_MEMORY_UTILIZATION = 0.9;
export const DEFAULT_MAX_NUM_BATCHED_TOKENS = 8192;
export const DEFAULT_MAX_NUM_SEQS = 256;

const MIB = 1024 * 1024;

type ActivationFamily = 'dense' | 'moe' | 'mla';
type TpKey = '1' | '2' | '4' | '8';

/** Activation multipliers per family and TP (AIC `_get_memory_usage`); SGLang's are larger. */
const ACTIVATION_COEF: Record<'default' | 'sglang', Record<ActivationFamily, Record<TpKey, number>>> = {
  default: {
    dense: { '1': 11, '2': 6.5, '4': 5, '8': 5 },
    moe: { '1': 22, '2': 13, '4': 10, '8': 10 },
    mla: { '1': 22, '2': 13, '4': 10, '8': 10 },
  },
  sglang: {
    dense: { '1': 14, '2': 8.5, '4': 6.5, '8': 6.5 },
    moe: { '1': 28, '2': 17, '4': 13, '8': 13 },
    mla: { '1': 28, '2': 17, '4': 13, '8': 13 },
  },
};
const SGLANG_ACTIVATION_SCALE = 1.15;
const SGLANG_OTHER_MEM_SCALE = 1.2;
/** vLLM / SGLang keep 2 % of their share free; TRT-LLM additionally 1.5 % of the free memory. */
const FRAGMENTATION_MARGIN = 0.02;
const TRTLLM_FREE_MARGIN = 0.015;

/** Tables are keyed by TP 1/2/4/8: take the largest key ≤ tp (tp 3 → 2, tp 16 → 8). */
function tpKey(tp: number): TpKey {
  if (tp >= 8) return '8';
  if (tp >= 4) return '4';
  if (tp >= 2) return '2';
  return '1';
}

function activationFamily(m: ModelArch): ActivationFamily {
  if (m.attention === 'mla') return 'mla';
  return m.numExperts > 0 ? 'moe' : 'dense';
}

/** Activation reservation per GPU for a forward pass of `tokens` tokens. */
export function activationBytesPerGpu(m: ModelArch, shape: ParallelShape, backend: Backend, tokens: number): number {
  const family = activationFamily(m);
  const sglang = backend === 'sglang';
  const coef = ACTIVATION_COEF[sglang ? 'sglang' : 'default'][family][tpKey(shape.tp)] * (sglang ? SGLANG_ACTIVATION_SCALE : 1);
  let bytes = 2 * tokens * m.hiddenSize * coef;
  if (family === 'mla') {
    if (shape.moe_ep > 1) {
      // DeepSeek-style MoE dispatch workspace (AIC): all-to-all buffers scale with DP × experts × top-k / EP.
      bytes += (tokens * m.hiddenSize * shape.attention_dp * m.numExperts * m.topK) / shape.moe_ep / 128 * 4;
    } else {
      // MoE tensor parallelism has no all-to-all: with attention DP the engines (vLLM's all-gather /
      // reduce-scatter MoE, SGLang's DP-attention gather) all-gather every rank's hidden states into
      // the TP-sharded experts. So the workspace is the single-rank one plus the gathered bf16 hidden
      // states, not AIC's dispatch term × DP (which would leave DTP shapes no KV at all).
      bytes += (tokens * m.hiddenSize * m.numExperts * m.topK) / 128 * 4 + (shape.attention_dp > 1 ? 2 * tokens * shape.attention_dp * m.hiddenSize : 0);
    }
  }
  return Math.max(bytes, (sglang ? 90 : 70) * MIB);
}

/** NCCL buffers at min(tp, 8) plus the CUDA/runtime reserve (SGLang's is 20 % larger). */
export function reservedBytesPerGpu(system: SystemSpec, shape: ParallelShape, backend: Backend): number {
  const other = system.otherMemBytes * (backend === 'sglang' ? SGLANG_OTHER_MEM_SCALE : 1);
  return system.ncclMemBytes[tpKey(shape.tp)] + other;
}

function checkInput(input: MemoryInput): void {
  const { shape } = input;
  for (const key of ['tp', 'pp', 'attention_dp', 'moe_tp', 'moe_ep'] as const) {
    const v = shape[key];
    if (!Number.isInteger(v) || v < 1) throw new InputError(`parallel shape: ${key} must be a positive integer (got ${v})`);
  }
  const util = input.gpuMemoryUtilization ?? DEFAULT_GPU_MEMORY_UTILIZATION;
  if (!(util > 0 && util <= 1)) throw new InputError(`gpu_memory_utilization must be in (0, 1] (got ${util})`);
  const tokens = input.maxNumBatchedTokens ?? DEFAULT_MAX_NUM_BATCHED_TOKENS;
  if (!(tokens > 0)) throw new InputError(`max_num_batched_tokens must be > 0 (got ${tokens})`);
  const seqs = input.maxNumSeqs ?? DEFAULT_MAX_NUM_SEQS;
  if (!(seqs >= 0)) throw new InputError(`max_num_seqs must be >= 0 (got ${seqs})`);
}

/**
 * Weights, activations, reserves and the KV budget of one GPU of the worker, and the KV capacity
 * of one attention-DP rank. Budget: vLLM/SGLang take a share "of total" memory,
 * `capacity·util·(1−0.02) − non_KV`; TRT-LLM a share "of free" memory,
 * `(capacity − non_KV)·util·(1−0.015)·(1−0.02)`.
 */
export function estimateMemory(input: MemoryInput): MemoryEstimate {
  checkInput(input);
  const { model, system, shape, backend, kvDtype } = input;
  const util = input.gpuMemoryUtilization ?? DEFAULT_GPU_MEMORY_UTILIZATION;
  const tokens = input.maxNumBatchedTokens ?? DEFAULT_MAX_NUM_BATCHED_TOKENS;
  const seqs = input.maxNumSeqs ?? DEFAULT_MAX_NUM_SEQS;

  const weightsBytesPerGpu = weightBytesPerGpu(model, shape, weightLayout(model, input.weightQuant, input.moeQuant));
  const activation = activationBytesPerGpu(model, shape, backend, tokens);
  const reserved = reservedBytesPerGpu(system, shape, backend);
  const nonKv = weightsBytesPerGpu + activation + reserved;
  const capacity = system.memCapacityBytes;

  const share =
    backend === 'trtllm'
      ? (capacity - nonKv) * util * (1 - TRTLLM_FREE_MARGIN) * (1 - FRAGMENTATION_MARGIN)
      : capacity * util * (1 - FRAGMENTATION_MARGIN) - nonKv;
  const perToken = kvBytesPerTokenPerGpu(model, kvDtype, shape);
  const perSequence = kvBytesPerSequencePerGpu(model, kvDtype, shape);
  const kvBudgetBytesPerGpu = Math.max(0, share - perSequence * seqs);
  const kvCapacityTokensPerRank = perToken > 0 ? Math.floor(kvBudgetBytesPerGpu / perToken) : 0;

  return {
    weightsBytesPerGpu,
    activationBytesPerGpu: activation,
    reservedBytesPerGpu: reserved,
    kvBudgetBytesPerGpu,
    kvBytesPerTokenPerGpu: perToken,
    kvBytesPerSequencePerGpu: perSequence,
    kvCapacityTokensPerRank,
    fits: nonKv < capacity && kvCapacityTokensPerRank > 0,
  };
}

/** Whole KV blocks of `blockSize` tokens one rank can hold. */
export function kvCapacityBlocksPerRank(est: MemoryEstimate, blockSize: number): number {
  if (!(Number.isInteger(blockSize) && blockSize > 0)) throw new InputError(`block_size must be a positive integer (got ${blockSize})`);
  return Math.floor(est.kvCapacityTokensPerRank / blockSize);
}

/** Requests of isl+osl tokens the worker's ranks can hold at once: ⌊tokens·attention_dp/(isl+osl)⌋. */
export function maxConcurrency(est: MemoryEstimate, attentionDp: number, isl: number, osl: number): number {
  const seqLen = isl + osl;
  if (!(seqLen > 0)) throw new InputError(`isl + osl must be > 0 (got ${isl} + ${osl})`);
  return Math.floor((est.kvCapacityTokensPerRank * attentionDp) / seqLen);
}
