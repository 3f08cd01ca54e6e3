// One engine pass of a transformer stack, composed from fitted op latencies (AIC's op graphs,
// aiconfigurator-facts §5 "Op graphs per family"): per layer norms, projections, attention
// (GQA, sliding-window, MLA or linear), FFN or MoE, collectives; once per pass embedding, final norm,
// logits GEMM and pipeline hand-offs; plus the backend's per-pass overheads (fitted from e2e data).
// The fitted kernelScale and launchCredit are applied per op (floored at each op's SOL) inside OpModel.
import { InputError } from '../../errors.js';
import type { Backend, KvCacheDtype, ModelArch, WeightQuant } from '../../model/arch.js';
import type { ParallelShape } from '../../parallel/shape.js';
import type { EnginePerf, PassWork } from '../pass.js';
import type { SystemSpec } from '../system.js';
import { weightLayout } from '../../model/weights.js';
import { disaggEngineOverhead, loadCoefficients, type Overhead } from './coefficients.js';
import { kernelDtypes } from './kernelDtype.js';
import { OpModel } from './ops.js';
import type { MlaGeometry } from './roofline.js';

export interface EnginePerfInput {
  model: ModelArch;
  system: SystemSpec;
  backend: Backend;
  shape: ParallelShape;
  /** Serving quantization of the attention / dense GEMMs ('mxfp4': MXFP4 experts, bf16 GEMMs). */
  quant: WeightQuant;
  kvDtype: KvCacheDtype;
  /** Quantization of the routed experts (default: `quant`). */
  moeQuant?: WeightQuant;
  /** MTP draft tokens verified per decode step (0 = off). */
  nextn?: number;
  coefficientsDir?: string;
  /** Replace the file's fitted overheads (calibration evaluates kernels-only passes this way). */
  overhead?: Overhead;
  /**
   * Serving mode (default agg). A disaggregated worker runs the file's overheads on the kernel tables
   * as timed (coefficients.ts disaggEngineOverhead); ignored when `overhead` is given.
   */
  mode?: 'agg' | 'disagg';
}

/** A pass's cost split by phase, for reports and tests (ms). */
export interface PassBreakdown {
  tokenOpsMs: number;
  prefillAttnMs: number;
  decodeAttnMs: number;
  overheadMs: number;
  totalMs: number;
}

export interface DetailedEnginePerf extends EnginePerf {
  breakdown(work: PassWork): PassBreakdown;
  readonly overhead: Overhead;
}

/** Model-owned MoE token skew (default after AIC SDK/models: power_law_1.01 for DeepSeek-like MLA families, else 1.2). */
function moeDistribution(m: ModelArch): string {
  return m.moeRoutingSkew ?? (m.attention === 'mla' ? 'power_law_1.01' : 'power_law_1.2');
}

/**
 * Query-key pairs of one sequence's prefill chunk of `n` new tokens after `prior` cached ones when each
 * query attends to at most `topK` keys (DeepSeek Sparse Attention): Σ_{j<n} min(prior + j + ½, topK) in
 * the engine's continuous form (with topK ≥ prior + n it is n·(prior + n/2), the dense PassWork count).
 */
export function sparsePrefillPairs(prior: number, n: number, topK: number): number {
  if (n <= 0) return 0;
  if (prior + n <= topK) return n * (prior + n / 2);
  if (prior >= topK) return n * topK;
  const j = topK - prior; // queries before the cap binds
  return j * (prior + j / 2) + (n - j) * topK;
}

/** Bounded memo: cleared wholesale when full (the simulator revisits a small set of token counts). */
const MEMO_LIMIT = 8192;

export function createEnginePerf(input: EnginePerfInput): DetailedEnginePerf {
  const { model: m, system, backend, shape, kvDtype } = input;
  const coeff = loadCoefficients(system.sku, backend, input.coefficientsDir);
  const overhead = input.overhead ?? (input.mode === 'disagg' ? disaggEngineOverhead(coeff.file.overhead) : coeff.file.overhead);
  // Decode-only passes replay CUDA graphs and get the launch credit; passes carrying prefill run eagerly.
  const graphOps = new OpModel(coeff, system, overhead.kernelScale, overhead.launchCredit);
  const eagerOps = overhead.launchCredit > 0 ? new OpModel(coeff, system, overhead.kernelScale) : graphOps;
  const nextn = input.nextn ?? 0;
  // Storage per weight class (checkpoint rule applied), then the kernels this SKU runs it with.
  const layout = weightLayout(m, input.quant, input.moeQuant);
  const { gemm: gemmDt, moe: moeDt } = kernelDtypes(layout, system.sku, Boolean(coeff.file.reference.flops.fp4));
  const tp = shape.tp;
  const dp = shape.attention_dp;
  if (m.numHeads % tp !== 0 && m.attention === 'mla') throw new InputError(`tp ${tp} does not divide ${m.numHeads} heads of ${m.id}`);

  const h = m.hiddenSize;
  const hq = Math.max(1, Math.ceil(m.numHeads / tp));
  const hkv = Math.max(1, Math.ceil(m.numKvHeads / tp));
  const hd = m.headDim;
  const kvB = kvDtype === 'fp8' ? 1 : 2;
  const linear = m.linearAttention?.layers ?? 0;
  const softmax = m.numLayers - linear;
  const windowed = m.slidingWindow > 0 ? Math.round(softmax * m.slidingWindowLayerFraction) : 0;
  const fullAttn = softmax - windowed;
  const moeLayers = m.numExperts > 0 ? m.numLayers - m.firstKDense : 0;
  const denseLayers = m.numLayers - moeLayers;
  const mla: MlaGeometry | undefined =
    m.attention === 'mla'
      ? { hidden: h, qLoraRank: m.qLoraRank || 1536, kvLoraRank: m.kvLoraRank, ropeDim: m.qkRopeHeadDim, nopeDim: m.qkNopeHeadDim, vDim: m.vHeadDim }
      : undefined;
  // vLLM's tables only hold bf16 FMHA (AIC forces it); TRT-LLM / SGLang run FP8 FMHA with an FP8 cache.
  const fp8Fmha = backend !== 'vllm';
  const sharedInter = m.sharedExperts * m.moeIntermediateSize;
  // DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5; model/arch.ts SparseAttentionSpec). The perf DB has
  // no DSA tables, so the lightning indexer is composed from the families it has, per layer:
  // * projections (tokenOps): wq_b (q_lora → heads·dim), wk (hidden → dim) in the checkpoint's GEMM
  //   dtype and weights_proj (hidden → heads, bf16), all replicated on every TP rank (SGLang
  //   ReplicatedLinear; DeepSeek's reference Linear); element-wise: the key's LayerNorm, RoPE, the
  //   Hadamard rotation and FP8 quantisation of q and k, the write of the key to its FP8 cache;
  // * scoring: ReLU(q·k) per head, head-weighted, over every cached token, in FP8 (DeepGEMM
  //   fp8_paged_mqa_logits / fp8_mqa_logits). Costed as the measured MQA attention curve (index heads
  //   over one KV head, FP8 cache) at half the head width: a K+V pass of width dim/2 has exactly the
  //   FLOPs and cache bytes of scoring dim-wide keys without a V pass. Plus the fp32 logits written
  //   and read back by the top-k selection (8 bytes per scored pair);
  // * the MLA itself then attends to min(context, topK) tokens: decode reads topK latents per step
  //   beyond topK tokens of context, prefill queries cap their keys at topK (sparsePrefillPairs).
  // The indexer's key cache (kv-cache.ts indexerBytesPerTokenPerLayer) counts in the KV budget.
  const dsa = mla ? m.sparseAttention : undefined;
  const indexerDecode = (ops: OpModel, b: number, kv: number): number =>
    dsa ? ops.generationAttention(b, kv, dsa.indexHeads, 1, dsa.indexHeadDim / 2, 0, 'fp8') + ops.elementwise(b * kv * 8) : 0;
  // Gated DeltaNet geometry per GPU (heads split over tp). The recurrent state is valueHeads × dk × dv
  // in fp32: Qwen3.5 / Qwen3-Next config.json set mamba_ssm_dtype = "float32", which SGLang and vLLM
  // follow by default. The conv state holds convKernel − 1 bf16 positions of the q|k|v channels.
  const gdn = (() => {
    const la = m.linearAttention;
    if (!la) return undefined;
    const valueHeads = Math.ceil(la.numValueHeads / tp);
    const keyHeads = Math.ceil(la.numKeyHeads / tp);
    const valueDim = valueHeads * la.valueHeadDim;
    const convDim = 2 * keyHeads * la.keyHeadDim + valueDim;
    return { valueHeads, valueDim, convDim, stateBytes: valueHeads * la.keyHeadDim * la.valueHeadDim * 4 + (la.convKernel - 1) * convDim * 2 };
  })();

  /** Ops whose cost depends only on the token count T of the pass (all but attention kernels), s. */
  const tokenOps = (ops: OpModel, t: number, seqsOut: number): number => {
    let s = 0;
    // Per-layer element-wise traffic (bf16): two RMSNorms, residual adds, RoPE, KV-cache write.
    const normBytes = 2 * (t * h * 2 + t * h * 2);
    let perLayerEw = ops.elementwise(normBytes) * 2 + ops.elementwise(t * h * 2 * 3);
    s += perLayerEw * m.numLayers;
    // Softmax-attention layers: RoPE and KV-cache write. Linear-attention (Gated DeltaNet) layers keep no
    // KV: causal-conv update over q|k|v and the gated RMSNorm of the output instead (bf16 in and out).
    if (!mla) s += (ops.elementwise(t * (hq + hkv) * hd * 2 * 2) + ops.elementwise(t * 2 * hkv * hd * (2 + kvB))) * softmax;
    else s += ops.elementwise(t * (m.kvLoraRank + m.qkRopeHeadDim) * (2 + kvB)) * m.numLayers;
    if (gdn) s += (ops.elementwise(t * gdn.convDim * 2 * 2) + ops.elementwise(t * gdn.valueDim * 2 * 3)) * linear;
    // Attention projections. MLA projections live in its module or below.
    if (!mla) {
      const qkv = ops.gemm(t, (hq + 2 * hkv) * hd, h, gemmDt) + ops.gemm(t, h, hq * hd, gemmDt);
      s += qkv * softmax;
      // Gated DeltaNet (HF Qwen3.5 / Qwen3-Next): in_proj_qkv|z (h → 2·keyDim + 2·valueDim), in_proj_b|a
      // (h → 2·value heads), out_proj (valueDim → h); column / row split over tp like GQA.
      if (gdn) s += (ops.gemm(t, gdn.convDim + gdn.valueDim + 2 * gdn.valueHeads, h, gemmDt) + ops.gemm(t, h, gdn.valueDim, gemmDt)) * linear;
    } else if (!ops.mlaModules) {
      // Kernel-only MLA data (SGLang): add the projection GEMMs explicitly.
      const proj =
        ops.gemm(t, mla.qLoraRank, h, gemmDt) +
        ops.gemm(t, hq * (mla.nopeDim + mla.ropeDim), mla.qLoraRank, gemmDt) +
        ops.gemm(t, mla.kvLoraRank + mla.ropeDim, h, gemmDt) +
        ops.gemm(t, hq * (mla.nopeDim + mla.vDim), mla.kvLoraRank, gemmDt) +
        ops.gemm(t, h, hq * mla.vDim, gemmDt);
      s += proj * m.numLayers;
    }
    if (dsa && mla) {
      const qDim = dsa.indexHeads * dsa.indexHeadDim;
      const kDim = dsa.indexHeadDim;
      const idx =
        ops.gemm(t, qDim, mla.qLoraRank, gemmDt) + ops.gemm(t, kDim, h, gemmDt) + ops.gemm(t, dsa.indexHeads, h, 'bfloat16') +
        ops.elementwise(t * kDim * 2 * 2) + // LayerNorm of k
        ops.elementwise(t * (qDim + kDim) * 2 * 2) + // RoPE of q and k
        ops.elementwise(t * (qDim + kDim) * 2 * 2) + // Hadamard rotation of q and k
        ops.elementwise(t * (qDim + kDim) * (2 + 1)) + // FP8 quantisation of q and k
        ops.elementwise(t * (kDim + 4 * Math.ceil(kDim / 128)) * 2); // key + scale into the indexer cache
      s += idx * m.numLayers;
    }
    // Dense FFN layers.
    if (denseLayers > 0) {
      const ffn = ops.gemm(t, (2 * m.intermediateSize) / tp, h, gemmDt) + ops.gemm(t, h, m.intermediateSize / tp, gemmDt) + ops.elementwise(t * (3 * m.intermediateSize / tp) * 2);
      s += ffn * denseLayers;
    }
    // MoE layers: router, routed experts over tokens from every attention-DP rank, shared experts.
    if (moeLayers > 0) {
      const tm = t * dp;
      let moe = ops.gemm(t, m.numExperts, h, 'bfloat16');
      moe += ops.moe(tm, h, m.moeIntermediateSize, m.topK, m.numExperts, shape.moe_tp, shape.moe_ep, moeDt, moeDistribution(m));
      if (sharedInter > 0) moe += ops.gemm(t, (2 * sharedInter) / tp, h, gemmDt) + ops.gemm(t, h, sharedInter / tp, gemmDt);
      if (dp > 1) {
        // Tokens of all DP ranks gathered into the MoE and scattered back.
        const n = dp * tp;
        moe += ops.collective('all_gather', tm * h * 2, n) + ops.collective('reduce_scatter', tm * h * 2, n);
      }
      s += moe * moeLayers;
    }
    // Tensor-parallel all-reduces: after attention and after the FFN/MoE.
    if (tp > 1) s += 2 * m.numLayers * ops.allReduce(t * h * 2, tp);
    // Once per pass: embedding, final norm, logits GEMM for the sequences that emit tokens.
    s += ops.elementwise(t * h * 2 * 2) + ops.elementwise(t * h * 4);
    s += ops.gemm(Math.max(1, seqsOut), m.vocabSize / tp, h, 'bfloat16');
    if (shape.pp > 1) s += (shape.pp - 1) * ops.p2p(t * h * 2);
    return s;
  };

  const memo = new Map<number, number>();
  const tokenOpsCached = (graph: boolean, t: number, seqsOut: number): number => {
    const key = (t * 65536 + Math.min(seqsOut, 65535)) * 2 + (graph ? 1 : 0);
    let v = memo.get(key);
    if (v === undefined) {
      if (memo.size >= MEMO_LIMIT) memo.clear();
      v = tokenOps(graph ? graphOps : eagerOps, t, seqsOut);
      memo.set(key, v);
    }
    return v;
  };


  const prefillAttn = (w: PassWork): number => {
    if (w.prefillSeqs <= 0 || w.prefillTokens <= 0) return 0;
    const b = w.prefillSeqs;
    // Equivalent no-prefix length with the same causal query-key pairs: pairs = b · s² / 2.
    const pairs = Math.max(w.prefillAttnPairs, w.prefillTokens / 2);
    const s = Math.max(1, Math.sqrt((2 * pairs) / b));
    let t = 0;
    if (mla && dsa) {
      // The pass read as b chunks of n new tokens after `prior` cached ones each (the mean chunk with
      // the pass's token and pair counts).
      const n = w.prefillTokens / b;
      const prior = Math.max(0, pairs / w.prefillTokens - n / 2);
      if (prior + n <= dsa.topK) {
        // Every key is in the top-k: engines run it as dense attention (SGLang's NSA backend takes its
        // dense MHA path when no sequence of the batch is longer than index_topk); the indexer only
        // stores the new keys (its projections are in tokenOps).
        t += eagerOps.mlaContext(b, s, hq, mla, gemmDt, kvDtype) * m.numLayers;
      } else {
        // Sparse prefill: the indexer scores every causal pair, then each query attends ≤ topK keys.
        const scoring = eagerOps.contextAttention(b, s, dsa.indexHeads, 1, dsa.indexHeadDim / 2, 0, 'fp8', true) + eagerOps.elementwise(pairs * 8);
        const sparse = b * sparsePrefillPairs(prior, n, dsa.topK);
        let attn: number;
        if (eagerOps.mlaModules) {
          // Module-level tables (projections + attention): the dense module's utilisation with the
          // attention's SOL at the sparse pairs.
          attn = eagerOps.mlaContext(b, s, hq, mla, gemmDt, kvDtype, Math.min(s, Math.sqrt((2 * sparse) / b)));
        } else {
          // Kernel-only tables: the sparse kernel works in MLA's absorbed (latent) form, one gathered
          // set of ≤ topK latents per query token, exactly as a decode query reads its cache: costed as
          // the MLA decode kernel over the pass's new tokens, at their mean key count, with the heads
          // padded as FlashMLA's sparse prefill kernel needs them: a multiple of 64 q heads on Hopper,
          // of 128 on Blackwell (the GPUs with FP4 tensor cores here); engines pad tensor-parallel
          // head shards up to that (SGLang's NSA backend; vLLM's FlashMLA-sparse backend notes the same).
          const pad = system.flops.fp4 ? 128 : 64;
          const heads = Math.ceil(hq / pad) * pad;
          attn = eagerOps.mlaGeneration(w.prefillTokens, sparse / w.prefillTokens, heads, mla, gemmDt, kvDtype);
        }
        t += (scoring + attn) * m.numLayers;
      }
    } else if (mla) t += eagerOps.mlaContext(b, s, hq, mla, gemmDt, kvDtype) * m.numLayers;
    else {
      if (fullAttn > 0) t += eagerOps.contextAttention(b, s, hq, hkv, hd, 0, kvDtype, fp8Fmha) * fullAttn;
      if (windowed > 0) t += eagerOps.contextAttention(b, s, hq, hkv, hd, m.slidingWindow, kvDtype, fp8Fmha) * windowed;
    }
    if (gdn) t += eagerOps.elementwise(2 * b * gdn.stateBytes + w.prefillTokens * h * 4) * linear;
    return t;
  };

  const decodeAttn = (ops: OpModel, w: PassWork): number => {
    if (w.decodeSeqs <= 0) return 0;
    const b = w.decodeSeqs * (1 + nextn);
    const kv = Math.max(1, w.decodeContextSum / w.decodeSeqs);
    let t = 0;
    if (mla) t += (ops.mlaGeneration(b, dsa ? Math.min(kv, dsa.topK) : kv, hq, mla, gemmDt, kvDtype) + indexerDecode(ops, b, kv)) * m.numLayers;
    else {
      if (fullAttn > 0) t += ops.generationAttention(b, kv, hq, hkv, hd, 0, kvDtype) * fullAttn;
      if (windowed > 0) t += ops.generationAttention(b, kv, hq, hkv, hd, m.slidingWindow, kvDtype) * windowed;
    }
    // Gated DeltaNet decode: each sequence's state is read and written once per step (memory bound, grows
    // with the batch; the per-token projections are in tokenOps). MTP drafts update the state once each.
    if (gdn) t += ops.elementwise(2 * b * gdn.stateBytes) * linear;
    return t;
  };

  const breakdown = (w: PassWork): PassBreakdown => {
    const tokens = w.prefillTokens + w.decodeSeqs * (1 + nextn);
    if (tokens <= 0) return { tokenOpsMs: 0, prefillAttnMs: 0, decodeAttnMs: 0, overheadMs: 0, totalMs: 0 };
    const seqsOut = w.prefillSeqs + w.decodeSeqs * (1 + nextn);
    const graph = w.prefillTokens <= 0;
    const tok = tokenOpsCached(graph, Math.round(tokens), Math.round(seqsOut)) * 1e3;
    const pa = prefillAttn(w) * 1e3;
    const da = decodeAttn(graph ? graphOps : eagerOps, w) * 1e3;
    const over = overhead.passMs + overhead.perLayerMs * m.numLayers;
    const total = tok + pa + da + over;
    return { tokenOpsMs: tok, prefillAttnMs: pa, decodeAttnMs: da, overheadMs: over, totalMs: total };
  };

  return {
    overhead,
    breakdown,
    passMs: (w) => breakdown(w).totalMs,
    prefillScaledPassMs: (w, k) => {
      const b = breakdown(w);
      if (w.prefillTokens <= 0 || k === 1) return b.totalMs;
      const tokens = w.prefillTokens + w.decodeSeqs * (1 + nextn);
      return b.totalMs + (k - 1) * (b.prefillAttnMs + (b.tokenOpsMs * w.prefillTokens) / tokens);
    },
  };
}
