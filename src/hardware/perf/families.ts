// The op families the perf model fits, each as: which perf-DB table, how a row maps to a group
// (dtype / kernel family), its features (log2 problem sizes) and its SOL time. The same feature and SOL
// functions are used when fitting and when evaluating, so a fitted utilisation means the same thing
// on both sides.
import type { GridAxis } from './grid.js';
import {
  DEEPSEEK_MLA,
  allReduceSol,
  collectiveSol,
  contextAttnSol,
  gemmSol,
  generationAttnSol,
  mlaContextKernelSol,
  mlaContextModuleSol,
  mlaGenerationKernelSol,
  mlaGenerationModuleSol,
  moeSol,
  type RooflineRef,
} from './roofline.js';
import type { CsvRow } from './perfdbTables.js';

export type FamilyName =
  | 'gemm'
  | 'context_attention'
  | 'generation_attention'
  | 'moe'
  | 'mla_context_module'
  | 'mla_generation_module'
  | 'context_mla'
  | 'generation_mla'
  | 'custom_allreduce'
  | 'nccl';

export interface Sample {
  group: string;
  x: number[];
  /** SOL time, seconds. */
  sol: number;
  /** Measured latency, seconds. */
  latency: number;
  /** Identifies the row's sweep (all rows sharing the non-sweep keys) for held-out evaluation. */
  sweep: string;
}

export interface Family {
  name: FamilyName;
  /** Table file name under <sku>/<backend>/ (nccl lives under <sku>/nccl/). */
  table: string;
  axes: GridAxis[];
  /** A perf-DB row as a fitting sample, or undefined for rows this model does not use. */
  sample(row: CsvRow, ref: RooflineRef): Sample | undefined;
  /**
   * A group whose fastest row is slower than this (s) was timed host-bound: every call paid the
   * collector's per-call host work, which CUDA graphs remove in serving, so its rows say nothing about
   * the kernel below that floor. Such a group is not fitted; lookups fall back along the dtype chain.
   */
  hostBoundFloorS?: number;
}

const L = Math.log2;
const n = (s: string): number => Number(s);
const kvBytes = (dt: string): number => (dt === 'fp8' ? 1 : 2);

/** GEMM dtypes the model serves (other dtypes in the tables are ignored). */
const GEMM_DTYPES = new Set(['bfloat16', 'fp8', 'fp8_block', 'nvfp4']);
const MOE_DTYPES = new Set(['bfloat16', 'fp8', 'fp8_block', 'nvfp4', 'w4a16_mxfp4']);
/**
 * w4a16 MXFP4 rows timed through Marlin stand-ins — compressed-tensors MXFP4 checkpoints, or SiLU
 * substituted for gpt-oss' clamped SwiGLU ("situ_as_silu") — are not the kernels an MXFP4 (gpt-oss)
 * checkpoint runs on Hopper (vLLM/SGLang: OAI triton; TRT-LLM: torch-flow), so they are not fitted.
 */
const MXFP4_STAND_INS = /compressedtensors|situ_as_silu/;

export const GEMM_AXES: GridAxis[] = [
  { lo: 0, step: 1, n: 16 }, // log2 m: 1 … 32768
  { lo: 5, step: 1, n: 12 }, // log2 n: 32 … 65536
  { lo: 5, step: 1, n: 12 }, // log2 k
];
// Attention and MoE curves take log2(SOL µs) as their first axis: launch floors and saturation are
// functions of how much work the kernel has, whichever dimension supplies it.
const SOL_AXIS: GridAxis = { lo: -6, step: 2, n: 12 }; // log2 SOL µs: 1/64 µs … 64 ms
export const CTX_ATTN_AXES: GridAxis[] = [
  SOL_AXIS,
  { lo: 0, step: 2, n: 8 }, // log2 isl: 1 … 16384
  { lo: 0, step: 2, n: 8 }, // log2 (batch · heads/GPU)
  { lo: 6, step: 1, n: 4 }, // log2 head_dim: 64 … 512
];
export const GEN_ATTN_AXES: GridAxis[] = [
  SOL_AXIS,
  { lo: 0, step: 2, n: 8 }, // log2 (batch · kv heads/GPU): CTAs in flight
  { lo: 0, step: 2, n: 10 }, // log2 kv tokens: 1 … 262144
  { lo: 0, step: 2, n: 3 }, // log2 (heads / kv heads): 1 … 16
];
export const MOE_AXES: GridAxis[] = [
  SOL_AXIS,
  { lo: -8, step: 2, n: 10 }, // log2 tokens per expert (T·topk/E)
  { lo: 0, step: 2, n: 6 }, // log2 local experts (E/ep)
  { lo: 0, step: 1, n: 3 }, // token-to-expert skew: balanced 0, power_law_1.01 1, power_law_1.2 2
];
/** Position of a perf-DB MoE distribution on the skew axis. */
export function moeSkew(distribution: string): number {
  return distribution === 'balanced' ? 0 : distribution === 'power_law_1.01' ? 1 : 2;
}
export const MLA_CTX_AXES: GridAxis[] = [
  { lo: 0, step: 2, n: 8 }, // log2 isl
  { lo: 0, step: 2, n: 5 }, // log2 batch
  { lo: 0, step: 1, n: 8 }, // log2 heads/GPU
];
export const MLA_GEN_AXES: GridAxis[] = [
  { lo: 0, step: 2, n: 6 }, // log2 batch
  { lo: 0, step: 2, n: 10 }, // log2 kv tokens
  { lo: 0, step: 1, n: 8 }, // log2 heads/GPU
];
export const COMM_AXES: GridAxis[] = [{ lo: 8, step: 1, n: 23 }]; // log2 bytes: 256 B … 1 GiB

export const gemmFeatures = (m: number, nn: number, k: number): number[] => [L(m), L(nn), L(k)];
const solUs = (sol: number): number => L(sol * 1e6);
export const ctxAttnFeatures = (sol: number, s: number, b: number, h: number, hd: number): number[] => [solUs(sol), L(s), L(b * h), L(hd)];
export const genAttnFeatures = (sol: number, b: number, kv: number, h: number, hkv: number): number[] => [solUs(sol), L(b * hkv), L(Math.max(1, kv)), L(h / hkv)];
export const moeFeatures = (sol: number, tokens: number, topk: number, experts: number, ep: number, skew: number): number[] => [
  solUs(sol),
  L((tokens * topk) / experts),
  L(Math.max(1, experts / ep)),
  skew,
];

export const FAMILIES: Record<FamilyName, Family> = {
  gemm: {
    name: 'gemm',
    table: 'gemm',
    axes: GEMM_AXES,
    // The smallest GEMMs of every kernel-timed group take 2–13 µs; vLLM's fp8_block linear rows
    // never go below 55–160 µs (per-call host work), so block-scaled GEMMs use the fp8 curve there.
    hostBoundFloorS: 25e-6,
    sample(r, ref) {
      if (!GEMM_DTYPES.has(r.gemm_dtype)) return undefined;
      const m = n(r.m), nn = n(r.n), k = n(r.k);
      return { group: r.gemm_dtype, x: gemmFeatures(m, nn, k), sol: gemmSol(ref, m, nn, k, r.gemm_dtype), latency: n(r.latency) / 1e3, sweep: `${r.gemm_dtype}/${nn}/${k}` };
    },
  },
  context_attention: {
    name: 'context_attention',
    table: 'context_attention',
    axes: CTX_ATTN_AXES,
    sample(r, ref) {
      const b = n(r.batch_size), s = n(r.isl), h = n(r.num_heads), hkv = n(r.num_key_value_heads), hd = n(r.head_dim), w = n(r.window_size);
      const sol = contextAttnSol(ref, b, s, h, hkv, hd, w, kvBytes(r.kv_cache_dtype));
      return {
        group: `${w > 0 ? 'swa' : 'full'}/${r.attn_dtype}`,
        x: ctxAttnFeatures(sol, s, b, h, hd),
        sol,
        latency: n(r.latency) / 1e3,
        sweep: `${h}/${hkv}/${hd}/${w}/${r.attn_dtype}/${r.kv_cache_dtype}`,
      };
    },
  },
  generation_attention: {
    name: 'generation_attention',
    table: 'generation_attention',
    axes: GEN_ATTN_AXES,
    sample(r, ref) {
      const b = n(r.batch_size), kv = n(r.isl) + n(r.step) - 1, h = n(r.num_heads), hkv = n(r.num_key_value_heads), hd = n(r.head_dim), w = n(r.window_size);
      const sol = generationAttnSol(ref, b, Math.max(1, kv), h, hkv, hd, w, kvBytes(r.kv_cache_dtype));
      return {
        group: `${w > 0 ? 'swa' : 'full'}/${r.kv_cache_dtype}`,
        x: genAttnFeatures(sol, b, Math.max(1, w > 0 ? Math.min(kv, w) : kv), h, hkv),
        sol,
        latency: n(r.latency) / 1e3,
        sweep: `${h}/${hkv}/${hd}/${w}/${r.kv_cache_dtype}`,
      };
    },
  },
  moe: {
    name: 'moe',
    table: 'moe',
    axes: MOE_AXES,
    sample(r, ref) {
      // Gated cutlass/deepgemm/triton paths only: TRT-LLM's min-latency grid and the non-gated
      // (ReLU²) kernels are other kernel families with other cost structures.
      if (!MOE_DTYPES.has(r.moe_dtype) || /min_latency|nongated/.test(r.kernel_source)) return undefined;
      if (r.moe_dtype === 'w4a16_mxfp4' && MXFP4_STAND_INS.test(r.kernel_source)) return undefined;
      const t = n(r.num_tokens), h = n(r.hidden_size), i = n(r.inter_size), k = n(r.topk), e = n(r.num_experts), tp = n(r.moe_tp_size), ep = n(r.moe_ep_size);
      const sol = moeSol(ref, t, h, i, k, e, tp, ep, r.moe_dtype);
      return {
        // Distributions share one grid (skew is an axis): the 14 % sweep sample covers different
        // shapes per distribution, so pooling them widens the shape coverage of each.
        group: r.moe_dtype,
        x: moeFeatures(sol, t, k, e, ep, moeSkew(r.distribution)),
        sol,
        latency: n(r.latency) / 1e3,
        sweep: `${r.moe_dtype}/${r.distribution}/${h}/${i}/${k}/${e}/${tp}/${ep}`,
      };
    },
  },
  mla_context_module: {
    name: 'mla_context_module',
    table: 'mla_context_module',
    axes: MLA_CTX_AXES,
    sample(r, ref) {
      const b = n(r.batch_size), s = n(r.isl), h = n(r.num_heads);
      return {
        group: `${r.gemm_type}/${r.kv_cache_dtype}`,
        x: [L(s), L(b), L(h)],
        sol: mlaContextModuleSol(ref, b, s, h, DEEPSEEK_MLA, r.gemm_type, kvBytes(r.kv_cache_dtype)),
        latency: n(r.latency) / 1e3,
        sweep: `${r.gemm_type}/${r.kv_cache_dtype}/${h}`,
      };
    },
  },
  mla_generation_module: {
    name: 'mla_generation_module',
    table: 'mla_generation_module',
    axes: MLA_GEN_AXES,
    sample(r, ref) {
      const b = n(r.batch_size), kv = n(r.step), h = n(r.num_heads);
      return {
        group: `${r.gemm_type}/${r.kv_cache_dtype}`,
        x: [L(b), L(kv), L(h)],
        sol: mlaGenerationModuleSol(ref, b, kv, h, DEEPSEEK_MLA, r.gemm_type, kvBytes(r.kv_cache_dtype)),
        latency: n(r.latency) / 1e3,
        sweep: `${r.gemm_type}/${r.kv_cache_dtype}/${h}`,
      };
    },
  },
  context_mla: {
    name: 'context_mla',
    table: 'context_mla',
    axes: MLA_CTX_AXES,
    sample(r, ref) {
      const b = n(r.batch_size), s = n(r.isl), h = n(r.num_heads);
      return {
        group: r.kv_cache_dtype,
        x: [L(s), L(b), L(h)],
        sol: mlaContextKernelSol(ref, b, s, h, DEEPSEEK_MLA, kvBytes(r.kv_cache_dtype)),
        latency: n(r.latency) / 1e3,
        sweep: `${r.kv_cache_dtype}/${h}/${r.tp_size}`,
      };
    },
  },
  generation_mla: {
    name: 'generation_mla',
    table: 'generation_mla',
    axes: MLA_GEN_AXES,
    sample(r, ref) {
      const b = n(r.batch_size), kv = n(r.isl) + n(r.step) - 1, h = n(r.num_heads);
      return {
        group: r.kv_cache_dtype,
        x: [L(b), L(Math.max(1, kv)), L(h)],
        sol: mlaGenerationKernelSol(ref, b, Math.max(1, kv), h, DEEPSEEK_MLA, kvBytes(r.kv_cache_dtype)),
        latency: n(r.latency) / 1e3,
        sweep: `${r.kv_cache_dtype}/${h}/${r.tp_size}`,
      };
    },
  },
  custom_allreduce: {
    name: 'custom_allreduce',
    table: 'custom_allreduce',
    axes: COMM_AXES,
    sample(r, ref) {
      // vLLM/SGLang carry eager and CUDA-graph rows; serving runs graphs (AIC loads only those).
      const impl = r.backend || r.implementation || '';
      if (impl.endsWith('_eager')) return undefined;
      const g = n(r.num_gpus), bytes = n(r.message_size) * 2;
      return { group: String(g), x: [L(bytes)], sol: allReduceSol(bytes, g, ref.intraNodeBwBps), latency: n(r.latency) / 1e3, sweep: `${g}` };
    },
  },
  nccl: {
    name: 'nccl',
    table: 'nccl',
    axes: COMM_AXES,
    sample(r, ref) {
      if (r.nccl_dtype !== 'half') return undefined;
      const g = n(r.num_gpus), bytes = n(r.message_size) * 2;
      const sol = r.op_name === 'all_reduce' ? allReduceSol(bytes, g, ref.intraNodeBwBps) : collectiveSol(bytes, g, ref.intraNodeBwBps);
      return { group: `${r.op_name}/${g}`, x: [L(bytes)], sol, latency: n(r.latency) / 1e3, sweep: `${r.op_name}/${g}` };
    },
  },
};

/** Families fitted from each backend's own directory (nccl is fitted once per SKU and shared). */
export const BACKEND_FAMILIES: FamilyName[] = [
  'gemm',
  'context_attention',
  'generation_attention',
  'moe',
  'mla_context_module',
  'mla_generation_module',
  'context_mla',
  'generation_mla',
  'custom_allreduce',
];
