// The legality rules every parallel shape passes — shared by the enumerator and by pinned configs so a pin
// is judged exactly like an enumerated shape (seed "Parallel configs (derived)" steps 1–5).
import type { Backend } from '../model/arch.js';
import { gpusPerWorker, type ParallelShape } from './shape.js';

/** GPUs per worker the enumerator draws from (seed `_DEFAULT_GPUS_PER_WORKER`). */
export const GPUS_PER_WORKER_LADDER: readonly number[] = [1, 2, 4, 8, 16];

/** Which engine a shape serves: the aggregated engine, or one side of a disaggregated pair. */
export type Role = 'agg' | 'prefill' | 'decode';

/** Model and hardware facts the rules need; the enumerator stays pure by receiving them. */
export interface ShapeFacts {
  isMoe: boolean;
  /** `context_length` if set, else the model's max context. */
  maxSeqLen: number;
  gpusPerNode: number;
  vramPerGpuBytes: number;
  /** Total weight bytes of the model at its serving quantization. */
  weightBytes: number;
}

/**
 * KV capacity of one attention-DP rank (tp GPUs) in tokens, for a shape on a backend in a role
 * (roles differ by their `gpu_memory_utilization`). Injected so the core needs no memory estimator.
 */
export type KvTokensPerRank = (shape: ParallelShape, backend: Backend, role: Role) => number;

/** Why a shape (or a backend) left the pool. `backend_filter:<b>` names the backend whose rule fired. */
export type PruneReason =
  | 'gpu_budget'
  | 'ladder'
  | 'moe_width'
  | 'pattern'
  | 'node_size'
  | `backend_filter:${Backend}`
  | 'backend_mode'
  | 'kv_capacity'
  | 'replicas';

export interface Violation {
  reason: PruneReason;
  detail: string;
}

/** The four pure MoE patterns the enumerator keeps; `null` for a mixed shape. */
export type MoePattern = 'tep' | 'dep' | 'tp' | 'dtp';

export function moePattern(s: ParallelShape): MoePattern | null {
  const { tp, attention_dp: dp, moe_tp: mtp, moe_ep: mep } = s;
  // One GPU is the all-ones shape, canonicalized as attention tp / FFN tp.
  if (tp === 1 && dp === 1 && mtp === 1 && mep === 1) return 'tp';
  if (tp > 1 && dp === 1 && mtp === 1 && mep > 1) return 'tep';
  if (tp === 1 && dp > 1 && mtp === 1 && mep > 1) return 'dep';
  if (tp > 1 && dp === 1 && mtp > 1 && mep === 1) return 'tp';
  if (tp === 1 && dp > 1 && mtp > 1 && mep === 1) return 'dtp';
  return null;
}

/** Large MoE a node cannot hold twice over turns on multi-node wide-EP (workers may span nodes). */
export function wideEpEnabled(facts: ShapeFacts): boolean {
  return facts.isMoe && facts.gpusPerNode * facts.vramPerGpuBytes < 2 * facts.weightBytes;
}

const isPowerOfTwo = (n: number): boolean => Number.isInteger(n) && n >= 1 && (n & (n - 1)) === 0;

/** Shape-only width rules (no backend): positive integer dims, ladder width, MoE width. */
export function structuralViolation(s: ParallelShape, facts: ShapeFacts): Violation | null {
  for (const [k, v] of Object.entries(s) as [keyof ParallelShape, number][]) {
    if (!Number.isInteger(v) || v < 1) return { reason: 'ladder', detail: `${k} must be a positive integer (got ${v})` };
  }
  const g = gpusPerWorker(s);
  if (!GPUS_PER_WORKER_LADDER.includes(g)) {
    return { reason: 'ladder', detail: `gpus_per_worker tp×pp×attention_dp = ${g} is not in {${GPUS_PER_WORKER_LADDER.join(', ')}}` };
  }
  if (facts.isMoe) {
    if (s.tp * s.attention_dp !== s.moe_tp * s.moe_ep) {
      return {
        reason: 'moe_width',
        detail: `MoE width: tp×attention_dp = ${s.tp * s.attention_dp} must equal moe_tp×moe_ep = ${s.moe_tp * s.moe_ep}`,
      };
    }
    if (![s.tp, s.attention_dp, s.moe_tp, s.moe_ep].every(isPowerOfTwo)) {
      return { reason: 'moe_width', detail: 'MoE dims tp/attention_dp/moe_tp/moe_ep must be powers of two' };
    }
  } else if (s.moe_tp !== 1 || s.moe_ep !== 1) {
    return { reason: 'moe_width', detail: `dense model: moe_tp and moe_ep must be 1 (got ${s.moe_tp}, ${s.moe_ep})` };
  }
  return null;
}

/** A worker fits one node, except EP workers of a model under multi-node wide-EP. */
export function nodeSizeViolation(s: ParallelShape, facts: ShapeFacts): Violation | null {
  const g = gpusPerWorker(s);
  if (g > facts.gpusPerNode) {
    const ep = s.moe_ep > 1 && s.moe_tp === 1;
    if (!(ep && wideEpEnabled(facts))) {
      return {
        reason: 'node_size',
        detail: ep
          ? `worker of ${g} GPUs exceeds a ${facts.gpusPerNode}-GPU node and the model fits a node (no multi-node wide-EP)`
          : `worker of ${g} GPUs exceeds a ${facts.gpusPerNode}-GPU node (only EP patterns may span nodes, under wide-EP)`,
      };
    }
  }
  return null;
}

/** Backend-specific rules (AI Configurator's `enumerate_parallel_config` filters). */
export function backendViolation(s: ParallelShape, backend: Backend, facts: ShapeFacts): Violation | null {
  if (backend === 'trtllm' && s.tp > 1 && s.attention_dp > 1) {
    return { reason: 'backend_filter:trtllm', detail: 'trtllm forbids tp > 1 together with attention_dp > 1' };
  }
  // SGLang's wide-EP MoE backends (wideep / deepep_moe / megamoe) are EP-only; they are the ones it
  // runs under multi-node wide-EP. Its default MoE backend (fused Triton kernels) shards experts by
  // tensor parallelism, so MoE-TP shapes stay legal otherwise (the seed's rule, as AIC applies it).
  if (backend === 'sglang' && wideEpEnabled(facts) && s.moe_tp !== 1) {
    return { reason: 'backend_filter:sglang', detail: `sglang's wide-EP MoE backends (used when the model needs multi-node wide-EP) are EP-only: moe_tp must be 1 (got ${s.moe_tp})` };
  }
  if (backend === 'vllm' && s.moe_tp > 1 && s.moe_ep > 1) {
    return { reason: 'backend_filter:vllm', detail: 'vllm forbids moe_tp > 1 together with moe_ep > 1' };
  }
  return null;
}

/** Replay capability: TRT-LLM disaggregation is rejected by the replay engine. */
export function backendModeViolation(backend: Backend, role: Role): Violation | null {
  if (backend === 'trtllm' && role !== 'agg') {
    return { reason: 'backend_mode', detail: 'trtllm is excluded from disaggregated branches (replay rejects TRT-LLM disaggregation)' };
  }
  return null;
}

export type ShapeVerdict = { ok: true; kvTokensPerRank: number } | ({ ok: false } & Violation);

/**
 * Full check of one shape for one backend and role, in a fixed order so the first failing rule is the
 * reported one: widths → pattern → node size → backend mode → backend filter → KV (per-rank tokens must exceed max_seq_len).
 * `requirePurePattern` is the enumerator's extra rule; pins may use mixed shapes.
 */
export function checkShape(
  s: ParallelShape,
  backend: Backend,
  role: Role,
  facts: ShapeFacts,
  kvTokensPerRank: KvTokensPerRank,
  requirePurePattern: boolean,
): ShapeVerdict {
  const v =
    structuralViolation(s, facts) ??
    (requirePurePattern && facts.isMoe && moePattern(s) === null
      ? { reason: 'pattern' as const, detail: 'not one of the TEP / DEP / TP / DTP patterns' }
      : null) ??
    nodeSizeViolation(s, facts) ??
    backendModeViolation(backend, role) ??
    backendViolation(s, backend, facts);
  if (v) return { ok: false, ...v };
  const kv = kvTokensPerRank(s, backend, role);
  if (!(kv > facts.maxSeqLen)) {
    return {
      ok: false,
      reason: 'kv_capacity',
      detail: `per-rank KV capacity ${Math.floor(kv)} tokens does not exceed max_seq_len ${facts.maxSeqLen}`,
    };
  }
  return { ok: true, kvTokensPerRank: kv };
}
