// Latency of single ops (seconds) from fitted utilisation curves: SOL(query) / util(query features).
// Group selection falls back along documented chains (e.g. a missing fp8 FMHA curve uses bf16),
// never to a naive constant.
import { InputError } from '../../errors.js';
import type { SystemSpec } from '../system.js';
import type { Coefficients } from './coefficients.js';
import { evalGrid, type Grid } from './grid.js';
import {
  ctxAttnFeatures,
  gemmFeatures,
  genAttnFeatures,
  moeFeatures,
  moeSkew,
} from './families.js';
import {
  allReduceSol,
  collectiveSol,
  contextAttnSol,
  elementwiseSeconds,
  gemmSol,
  generationAttnSol,
  mlaContextKernelSol,
  mlaContextModuleSol,
  mlaGenerationKernelSol,
  mlaGenerationModuleSol,
  moeSol,
  type MlaGeometry,
  type RooflineRef,
} from './roofline.js';

const L = Math.log2;

/** KV-cache dtype as the perf-DB tables name it (callers may pass Spica's 'bf16'). */
function dbKv(kvDtype: string): 'fp8' | 'bfloat16' {
  return kvDtype === 'fp8' ? 'fp8' : 'bfloat16';
}

/** Perf-DB dtype fallback order when a backend has no table for the requested one. */
const DTYPE_FALLBACK: Record<string, string[]> = {
  nvfp4: ['nvfp4', 'fp8_block', 'fp8', 'bfloat16'],
  // Weight-only MXFP4 computes in bf16: the bf16 curve is the closest utilisation shape.
  w4a16_mxfp4: ['w4a16_mxfp4', 'bfloat16'],
  fp8_block: ['fp8_block', 'fp8', 'bfloat16'],
  fp8: ['fp8', 'fp8_block', 'bfloat16'],
  bfloat16: ['bfloat16', 'fp8_block', 'fp8'],
};

export type CollectiveOp = 'all_gather' | 'reduce_scatter' | 'alltoall' | 'all_reduce';

/** A fitted utilisation curve and the per-call floor of the rows it was fitted on (s). */
interface Curve {
  grid: Grid;
  floorS: number;
}

export class OpModel {
  readonly ref: RooflineRef;
  private readonly curves: Map<string, Grid>;
  private readonly floors: Map<string, number>;
  private readonly resolved = new Map<string, Curve | null>();

  /**
   * @param kernelScale the backend's fitted factor between isolated-kernel and in-engine time; applied
   *   per op and floored at the op's SOL, so no op ever beats its roofline.
   * @param launchCredit share of each op's per-call floor the engine does not pay (`Overhead.launchCredit`).
   */
  constructor(coeff: Coefficients, private readonly system: SystemSpec, private readonly kernelScale = 1, private readonly launchCredit = 0) {
    this.ref = coeff.file.reference;
    this.curves = coeff.curves;
    this.floors = coeff.floors;
  }

  /** First existing curve among `family/group` candidates (memoised). */
  private curve(family: string, groups: string[]): Curve | null {
    const key = `${family}|${groups.join('|')}`;
    const hit = this.resolved.get(key);
    if (hit !== undefined) return hit;
    let found: Curve | null = null;
    for (const g of groups) {
      const c = this.curves.get(`${family}/${g}`);
      if (c) { found = { grid: c, floorS: this.floors.get(`${family}/${g}`) ?? 0 }; break; }
    }
    this.resolved.set(key, found);
    return found;
  }

  hasFamily(family: string): boolean {
    for (const k of this.curves.keys()) if (k.startsWith(`${family}/`)) return true;
    return false;
  }

  private need(family: string, groups: string[]): Curve {
    const c = this.curve(family, groups);
    if (!c) throw new InputError(`perf model: no '${family}' curve for ${groups.join(' / ')} in the coefficients of this SKU/backend`);
    return c;
  }

  private apply(c: Curve, sol: number, x: number[]): number {
    const lu = evalGrid(c.grid, x);
    // Utilisation is capped at 1 and the scaled time floored at SOL: nothing beats its roofline.
    // The credited share of the collector's per-call floor comes off before the SOL floor.
    const t = this.kernelScale * (sol / 2 ** (lu < 0 ? lu : 0) - this.launchCredit * c.floorS);
    return t > sol ? t : sol;
  }

  gemm(m: number, n: number, k: number, dtype: string): number {
    if (m <= 0 || n <= 0 || k <= 0) return 0;
    const g = this.need('gemm', DTYPE_FALLBACK[dtype] ?? [dtype]);
    return this.apply(g, gemmSol(this.ref, m, n, k, dtype), gemmFeatures(m, n, k));
  }

  contextAttention(batch: number, s: number, heads: number, kvHeads: number, headDim: number, window: number, kvDtype: string, fp8Fmha: boolean): number {
    if (batch <= 0 || s <= 0) return 0;
    kvDtype = dbKv(kvDtype);
    const w = window > 0 ? 'swa' : 'full';
    const attn = fp8Fmha && kvDtype === 'fp8' ? ['fp8', 'bfloat16'] : ['bfloat16', 'fp8'];
    const groups = [...attn.map((a) => `${w}/${a}`), ...attn.map((a) => `full/${a}`)];
    const g = this.need('context_attention', groups);
    const sol = contextAttnSol(this.ref, batch, s, heads, kvHeads, headDim, window, kvDtype === 'fp8' ? 1 : 2);
    return this.apply(g, sol, ctxAttnFeatures(sol, s, batch, heads, headDim));
  }

  generationAttention(batch: number, kv: number, heads: number, kvHeads: number, headDim: number, window: number, kvDtype: string): number {
    if (batch <= 0) return 0;
    kvDtype = dbKv(kvDtype);
    const w = window > 0 ? 'swa' : 'full';
    const other = kvDtype === 'fp8' ? 'bfloat16' : 'fp8';
    const g = this.need('generation_attention', [`${w}/${kvDtype}`, `${w}/${other}`, `full/${kvDtype}`, `full/${other}`]);
    const k = Math.max(1, kv);
    const sol = generationAttnSol(this.ref, batch, k, heads, kvHeads, headDim, window, kvDtype === 'fp8' ? 1 : 2);
    const eff = window > 0 ? Math.min(k, window) : k;
    return this.apply(g, sol, genAttnFeatures(sol, batch, eff, heads, kvHeads));
  }

  moe(tokens: number, hidden: number, inter: number, topk: number, experts: number, tp: number, ep: number, dtype: string, distribution: string): number {
    if (tokens <= 0) return 0;
    const dts = DTYPE_FALLBACK[dtype] ?? [dtype];
    const g = this.need('moe', dts);
    const sol = moeSol(this.ref, tokens, hidden, inter, topk, experts, tp, ep, dtype);
    return this.apply(g, sol, moeFeatures(sol, tokens, topk, experts, ep, moeSkew(distribution)));
  }

  /** Whether the backend's MLA data is module-level (projections included) or kernel-only. */
  get mlaModules(): boolean {
    return this.hasFamily('mla_context_module');
  }

  /**
   * MLA prefill of `batch` sequences of equivalent causal length `s`. `attnS` (≤ s, default s): the
   * equivalent length the attention covers when sparse attention caps the keys per query. Module-level
   * tables (projections included) keep their utilisation at the projected shape `s` and take the
   * attention's SOL at `attnS`; kernel-only tables are the attention alone, read at `attnS`.
   */
  mlaContext(batch: number, s: number, heads: number, geo: MlaGeometry, gemmDtype: string, kvDtype: string, attnS = s): number {
    if (batch <= 0 || s <= 0) return 0;
    kvDtype = dbKv(kvDtype);
    const kvB = kvDtype === 'fp8' ? 1 : 2;
    const other = kvDtype === 'fp8' ? 'bfloat16' : 'fp8';
    if (this.mlaModules) {
      const dts = DTYPE_FALLBACK[gemmDtype] ?? [gemmDtype];
      const g = this.need('mla_context_module', [...dts.map((d) => `${d}/${kvDtype}`), ...dts.map((d) => `${d}/${other}`)]);
      return this.apply(g, mlaContextModuleSol(this.ref, batch, s, heads, geo, gemmDtype, kvB, attnS), [L(s), L(batch), L(heads)]);
    }
    const g = this.need('context_mla', [kvDtype, other]);
    return this.apply(g, mlaContextKernelSol(this.ref, batch, attnS, heads, geo, kvB), [L(attnS), L(batch), L(heads)]);
  }

  mlaGeneration(batch: number, kv: number, heads: number, geo: MlaGeometry, gemmDtype: string, kvDtype: string): number {
    if (batch <= 0) return 0;
    kvDtype = dbKv(kvDtype);
    const k = Math.max(1, kv);
    const kvB = kvDtype === 'fp8' ? 1 : 2;
    const other = kvDtype === 'fp8' ? 'bfloat16' : 'fp8';
    if (this.mlaModules) {
      const dts = DTYPE_FALLBACK[gemmDtype] ?? [gemmDtype];
      const g = this.need('mla_generation_module', [...dts.map((d) => `${d}/${kvDtype}`), ...dts.map((d) => `${d}/${other}`)]);
      return this.apply(g, mlaGenerationModuleSol(this.ref, batch, k, heads, geo, gemmDtype, kvB), [L(batch), L(k), L(heads)]);
    }
    const g = this.need('generation_mla', [kvDtype, other]);
    return this.apply(g, mlaGenerationKernelSol(this.ref, batch, k, heads, geo, kvB), [L(batch), L(k), L(heads)]);
  }

  /**
   * Framework all-reduce of `bytes` across n GPUs. Within one NVLink domain it is the measured curve
   * (2/4/8 GPUs) of the framework's custom all-reduce. Beyond, the frameworks fall back to NCCL (their
   * custom all-reduce is intra-node only: vLLM/SGLang log "Custom allreduce is disabled because this
   * process group spans across nodes"), which is hierarchical: the measured 8-GPU NCCL all-reduce for
   * the NVLink part plus `crossNodes` for each GPU's 1/g share of the buffer over its own NIC.
   */
  allReduce(bytes: number, n: number): number {
    if (n <= 1 || bytes <= 0) return 0;
    const measured = n <= 2 ? 2 : n <= 4 ? 4 : 8;
    const multiNode = n > this.domain();
    const g = (multiNode ? this.curve('nccl', [`all_reduce/${measured}`]) : null) ?? this.curve('custom_allreduce', [String(measured)]) ?? this.need('nccl', [`all_reduce/${measured}`]);
    const t = this.apply(g, allReduceSol(bytes, measured, this.ref.intraNodeBwBps), [L(bytes)]);
    return t + this.crossNodes('all_reduce', bytes, n);
  }

  /** NCCL all-gather / reduce-scatter / all-to-all of a `bytes` buffer across n GPUs (hierarchical beyond a node). */
  collective(op: CollectiveOp, bytes: number, n: number): number {
    if (n <= 1 || bytes <= 0) return 0;
    const measured = n <= 2 ? 2 : n <= 4 ? 4 : 8;
    const g = this.need('nccl', [`${op}/${measured}`]);
    const sol = op === 'all_reduce' ? allReduceSol(bytes, measured, this.ref.intraNodeBwBps) : collectiveSol(bytes, measured, this.ref.intraNodeBwBps);
    const t = this.apply(g, sol, [L(bytes)]);
    return t + this.crossNodes(op, bytes, n);
  }

  /** GPUs sharing one NVLink domain (a node, or a GB200/GB300 rack). */
  private domain(): number {
    return Math.max(this.system.gpusPerNode, this.system.gpusPerRack);
  }

  /**
   * Inter-node phase of a collective of a `bytes` buffer over n GPUs spanning several NVLink domains
   * (0 within one: the measured curve already is the cost). Bandwidth: all-reduce / all-gather /
   * reduce-scatter run hierarchically, each GPU moving its 1/g share of the traffic (2·bytes for an
   * all-reduce) × (nodes−1)/nodes over its own NIC; an all-to-all sends the (nodes−1)/nodes of its
   * buffer addressed to other nodes through its own NIC. Latency: one link latency per sequential
   * inter-node step of NCCL's algorithms (its cost model, src/graph/tuning.cc `nInterSteps`):
   * ring all-reduce 2·(nodes−1) steps, tree all-reduce 2·⌈log2 nodes⌉ (NCCL picks the cheaper; the
   * tree for latency-bound decode messages beyond 2 nodes), ring all-gather / reduce-scatter /
   * all-to-all nodes−1.
   */
  private crossNodes(op: CollectiveOp, bytes: number, n: number): number {
    const domain = this.domain();
    if (n <= domain) return 0;
    const nodes = Math.ceil(n / domain);
    const share = (nodes - 1) / nodes;
    const perGpu = op === 'all_reduce' ? (2 * bytes) / domain : op === 'alltoall' ? bytes : bytes / domain;
    const steps = op === 'all_reduce' ? Math.min(2 * (nodes - 1), 2 * Math.ceil(Math.log2(nodes))) : nodes - 1;
    return (perGpu * share) / this.linkBw(n) + steps * this.interLatency(n);
  }

  /** One-way latency of a link between the GPUs of a group of n (AIC: p2p_latency; between racks inter_rack_latency). */
  private interLatency(n: number): number {
    const s = this.system;
    return n > s.gpusPerRack && s.gpusPerRack > s.gpusPerNode && s.interRackLatencyS !== undefined ? s.interRackLatencyS : s.p2pLatencyS;
  }

  /** Per-GPU link bandwidth for a group of n GPUs (AIC get_p2p_bandwidth). */
  linkBw(n: number): number {
    const s = this.system;
    if (n <= s.gpusPerNode) return s.intraNodeBwBps;
    if (n <= s.gpusPerRack) return s.interNodeBwBps;
    return s.interRackBwBps ?? s.interNodeBwBps;
  }

  /** Memory-bound op without a table: bytes / (HBM bw · empirical scaling) + launch constant. */
  elementwise(bytes: number): number {
    if (bytes <= 0) return 0;
    const s = this.system;
    const t = this.kernelScale * (elementwiseSeconds(bytes, s.memBwBps, s.memBwEmpiricalScaling, s.elementwiseLatencyS) - this.launchCredit * s.elementwiseLatencyS);
    const sol = bytes / s.memBwBps;
    return t > sol ? t : sol;
  }

  /** Pipeline-stage hand-off of `bytes` (AIC P2P: bytes / inter-node bw + p2p latency). */
  p2p(bytes: number): number {
    return bytes / this.system.interNodeBwBps + this.system.p2pLatencyS;
  }
}
