// Speed-of-light (SOL) times of each op family: max(FLOPs / peak, bytes / HBM bandwidth), in seconds.
// These are AIC's roofline formulas (aiconfigurator-facts §4.2, perfdb README "How to calibrate");
// calibration fits utilisation = SOL / measured against them, evaluation returns SOL / utilisation.

/** Peaks the fitted utilisations are relative to (recorded in each coefficients file). */
export interface RooflineRef {
  memBwBps: number;
  intraNodeBwBps: number;
  flops: { bf16: number; fp8?: number; fp4?: number };
}

/** Kernel dtypes as the perf DB names them. */
export type KernelDtype = 'bfloat16' | 'fp8' | 'fp8_block' | 'nvfp4' | 'int4_wo' | 'w4a16_mxfp4' | 'w4a8_mxfp4_mxfp8';

/** Bytes per weight element and Tensor-Core multiplier vs bf16 (AIC `RS/common/enums.rs`). */
export function dtypeProfile(dt: string): { bytes: number; compute: number } {
  switch (dt) {
    case 'fp8':
    case 'fp8_block':
      return { bytes: 1, compute: 2 };
    case 'nvfp4':
      return { bytes: 9 / 16, compute: 4 };
    case 'int4_wo':
      return { bytes: 0.5, compute: 1 };
    // MXFP4: e2m1 + one e8m0 scale per 32 weights. w4a16 dequantises to bf16 and runs bf16 MMA.
    case 'w4a16_mxfp4':
      return { bytes: 17 / 32, compute: 1 };
    case 'w4a8_mxfp4_mxfp8':
      return { bytes: 17 / 32, compute: 2 };
    default:
      return { bytes: 2, compute: 1 };
  }
}

function peak(ref: RooflineRef, compute: number): number {
  // The bf16 peak × AIC's multiplier; identical to the YAML fp8/fp4 peaks on the SKUs with data.
  return ref.flops.bf16 * compute;
}

export function gemmSol(ref: RooflineRef, m: number, n: number, k: number, dt: string): number {
  const p = dtypeProfile(dt);
  const f = (2 * m * n * k) / peak(ref, p.compute);
  const b = (p.bytes * n * k + 2 * (m * k + m * n)) / ref.memBwBps;
  return f > b ? f : b;
}

/**
 * Causal prefill attention of `batch` sequences of `s` new tokens (no prefix), per GPU.
 * Window w < s: each query sees ≤ w keys.
 */
export function contextAttnSol(ref: RooflineRef, batch: number, s: number, heads: number, kvHeads: number, headDim: number, window: number, kvBytes: number): number {
  const f = window > 0 && window < s ? 4 * batch * s * window * heads * headDim : 2 * batch * s * s * heads * headDim;
  const b = 2 * batch * 2 * heads * s * headDim + kvBytes * batch * 2 * kvHeads * s * headDim;
  const tf = f / ref.flops.bf16;
  const tb = b / ref.memBwBps;
  return tf > tb ? tf : tb;
}

/** One decode step of `batch` sequences each with `kv` cached tokens. */
export function generationAttnSol(ref: RooflineRef, batch: number, kv: number, heads: number, kvHeads: number, headDim: number, window: number, kvBytes: number): number {
  const eff = window > 0 && kv > window ? window : kv;
  const f = 4 * batch * heads * headDim * eff;
  const b = batch * (4 * heads * headDim + 2 * kvHeads * eff * headDim * kvBytes);
  const tf = f / ref.flops.bf16;
  const tb = b / ref.memBwBps;
  return tf > tb ? tf : tb;
}

/** Fused expert computation of one MoE layer on one GPU (`tokens` = tokens entering the layer). */
export function moeSol(ref: RooflineRef, tokens: number, hidden: number, inter: number, topk: number, experts: number, tp: number, ep: number, dt: string, gated = true): number {
  const p = dtypeProfile(dt);
  const g = gated ? 3 : 2;
  const pairs = (tokens * topk) / ep;
  const f = (2 * pairs * hidden * inter * g) / tp;
  const hit = Math.min(experts / ep, pairs);
  const bytes = 2 * (pairs * hidden * 2 + (pairs * inter * g) / tp) + (p.bytes * hidden * inter * g * hit) / tp;
  const tf = f / peak(ref, p.compute);
  const tb = bytes / ref.memBwBps;
  return tf > tb ? tf : tb;
}

/** Ring all-reduce of `bytes` over n GPUs at link bandwidth `bw` (AIC communication.rs). */
export function allReduceSol(bytes: number, n: number, bw: number): number {
  return n <= 1 ? 0 : (2 * bytes * (n - 1)) / n / bw;
}

/** all-gather / reduce-scatter / all-to-all: each GPU moves (n−1)/n of the buffer once. */
export function collectiveSol(bytes: number, n: number, bw: number): number {
  return n <= 1 ? 0 : (bytes * (n - 1)) / n / bw;
}

// DeepSeek MLA geometry shared by the perf-DB MLA tables (kv_lora_rank 512, rope 64, nope 128, v 128).
export interface MlaGeometry {
  hidden: number;
  qLoraRank: number;
  kvLoraRank: number;
  ropeDim: number;
  nopeDim: number;
  vDim: number;
}

export const DEEPSEEK_MLA: MlaGeometry = { hidden: 7168, qLoraRank: 1536, kvLoraRank: 512, ropeDim: 64, nopeDim: 128, vDim: 128 };

/** MLA attention kernel only (sglang `context_mla`): causal, q/k dim nope+rope, v dim. */
export function mlaContextKernelSol(ref: RooflineRef, batch: number, s: number, heads: number, geo: MlaGeometry, kvBytes: number): number {
  const dqk = geo.nopeDim + geo.ropeDim;
  const f = batch * s * s * heads * (dqk + geo.vDim);
  const b = 2 * batch * s * heads * (dqk + geo.vDim) * 2 + kvBytes * batch * s * (geo.kvLoraRank + geo.ropeDim);
  return Math.max(f / ref.flops.bf16, b / ref.memBwBps);
}

/** Absorbed MLA decode kernel: every head reads the latent cache (kv_lora + rope) of each sequence. */
export function mlaGenerationKernelSol(ref: RooflineRef, batch: number, kv: number, heads: number, geo: MlaGeometry, kvBytes: number): number {
  const lat = geo.kvLoraRank + geo.ropeDim;
  const f = 2 * batch * heads * kv * (lat + geo.kvLoraRank);
  const b = batch * kv * lat * kvBytes + batch * heads * lat * 4;
  return Math.max(f / ref.flops.bf16, b / ref.memBwBps);
}

/** FLOPs and weight bytes of the MLA projections for `tokens` tokens with `heads` heads on this GPU. */
function mlaProjection(tokens: number, heads: number, geo: MlaGeometry, wBytes: number): { f: number; b: number } {
  const dqk = geo.nopeDim + geo.ropeDim;
  const params =
    geo.hidden * geo.qLoraRank + // q_a (replicated)
    geo.qLoraRank * heads * dqk + // q_b
    geo.hidden * (geo.kvLoraRank + geo.ropeDim) + // kv_a (replicated)
    geo.kvLoraRank * heads * (geo.nopeDim + geo.vDim) + // kv_b
    heads * geo.vDim * geo.hidden; // o_proj
  return { f: 2 * tokens * params, b: params * wBytes + 2 * tokens * geo.hidden * 2 };
}

/**
 * Whole MLA block (projections + attention) in prefill, as the `mla_context_module` tables measure it.
 * `attnS` (default `s`): the equivalent causal length the attention itself covers, shorter than the
 * `s` tokens projected when a sparse-attention indexer caps the keys per query (engine.ts).
 */
export function mlaContextModuleSol(ref: RooflineRef, batch: number, s: number, heads: number, geo: MlaGeometry, gemmDt: string, kvBytes: number, attnS = s): number {
  const p = dtypeProfile(gemmDt);
  const proj = mlaProjection(batch * s, heads, geo, p.bytes);
  const attn = mlaContextKernelSol(ref, batch, attnS, heads, geo, kvBytes);
  return Math.max(proj.f / peak(ref, p.compute), proj.b / ref.memBwBps) + attn;
}

/** Whole MLA block for one decode step (`mla_generation_module`). */
export function mlaGenerationModuleSol(ref: RooflineRef, batch: number, kv: number, heads: number, geo: MlaGeometry, gemmDt: string, kvBytes: number): number {
  const p = dtypeProfile(gemmDt);
  const proj = mlaProjection(batch, heads, geo, p.bytes);
  const attn = mlaGenerationKernelSol(ref, batch, kv, heads, geo, kvBytes);
  return Math.max(proj.f / peak(ref, p.compute), proj.b / ref.memBwBps) + attn;
}

/** Element-wise / memory-bound op without a table: bytes / (bw · scaling) + fixed launch cost (AIC). */
export function elementwiseSeconds(bytes: number, memBwBps: number, scaling: number, constantS: number): number {
  return bytes / (memBwBps * scaling) + constantS;
}
