// KV-feasible enumeration of a branch's parallel-config pool per (model, hardware, gpu_budget, backend),
// seed "Parallel configs (derived)". Pure and deterministic: same inputs, same pool in the same order.
import type { Backend } from '../model/arch.js';
import { NoViableParallelConfig } from '../errors.js';
import {
  GPUS_PER_WORKER_LADDER,
  backendModeViolation,
  checkShape,
  type KvTokensPerRank,
  type Role,
  type ShapeFacts,
} from './legality.js';
import {
  branchPool,
  canonicalGroup,
  compareConfigs,
  configId,
  sortBackends,
  type BranchPool,
  type DroppedBackend,
  type PoolMember,
  type PrunedShape,
} from './pool.js';
import { gpusPerWorker, type DeploymentMode, type ParallelShape, type WorkerGroup } from './shape.js';

export interface EnumerationContext {
  facts: ShapeFacts;
  kvTokensPerRank: KvTokensPerRank;
  gpuBudget: number;
  /** Lower bound on used GPUs (defaults to 1). */
  minGpuBudget?: number;
}

export interface FeasibleShape {
  shape: ParallelShape;
  kvTokensPerRank: number;
}

function powersOfTwoUpTo(n: number): number[] {
  const out: number[] = [];
  for (let p = 1; p <= n; p *= 2) out.push(p);
  return out;
}

/** Every shape the scan visits, before any rule: dense plain TP, or MoE dims whose widths match. */
export function scannedShapes(isMoe: boolean, gpuBudget: number): ParallelShape[] {
  const out: ParallelShape[] = [];
  for (const g of GPUS_PER_WORKER_LADDER) {
    if (g > gpuBudget) continue;
    if (!isMoe) {
      out.push({ tp: g, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 1 });
      continue;
    }
    for (const tp of powersOfTwoUpTo(g)) {
      for (const moeTp of powersOfTwoUpTo(g)) {
        out.push({ tp, pp: 1, attention_dp: g / tp, moe_tp: moeTp, moe_ep: g / moeTp });
      }
    }
  }
  return out;
}

function validateContext(ctx: EnumerationContext): { budget: number; minBudget: number } {
  const budget = ctx.gpuBudget;
  const minBudget = ctx.minGpuBudget ?? 1;
  if (!Number.isInteger(budget) || budget < 1) throw new RangeError(`gpu_budget must be a positive integer (got ${budget})`);
  if (!Number.isInteger(minBudget) || minBudget < 1 || minBudget > budget) {
    throw new RangeError(`min_gpu_budget must satisfy 0 < min_gpu_budget <= gpu_budget (got ${minBudget})`);
  }
  return { budget, minBudget };
}

/** Legal, KV-feasible worker shapes of one backend and role, plus every rejected shape with its reason. */
export function enumerateShapes(
  ctx: EnumerationContext,
  backend: Backend,
  role: Role,
): { feasible: FeasibleShape[]; pruned: PrunedShape[] } {
  const feasible: FeasibleShape[] = [];
  const pruned: PrunedShape[] = [];
  for (const shape of scannedShapes(ctx.facts.isMoe, ctx.gpuBudget)) {
    const v = checkShape(shape, backend, role, ctx.facts, ctx.kvTokensPerRank, true);
    if (v.ok) feasible.push({ shape, kvTokensPerRank: v.kvTokensPerRank });
    else pruned.push({ role, backend, shape, reason: v.reason, detail: v.detail });
  }
  return { feasible, pruned };
}

function groupsOf(shape: ParallelShape, lo: number, hi: number): WorkerGroup[] {
  const g = gpusPerWorker(shape);
  const out: WorkerGroup[] = [];
  for (let r = 1; r <= Math.floor(hi / g); r++) {
    if (g * r >= lo) out.push(canonicalGroup({ ...shape, replicas: r }));
  }
  return out;
}

/** Aggregated configs of one backend: each feasible shape × replicas with g·r ∈ [min_gpu_budget, gpu_budget]. */
export function enumerateAgg(ctx: EnumerationContext, backend: Backend): { members: PoolMember[]; pruned: PrunedShape[] } {
  const { budget, minBudget } = validateContext(ctx);
  const { feasible, pruned } = enumerateShapes(ctx, backend, 'agg');
  const members: PoolMember[] = [];
  for (const f of feasible) {
    const groups = groupsOf(f.shape, minBudget, budget);
    if (groups.length === 0) {
      pruned.push({
        role: 'agg',
        backend,
        shape: f.shape,
        reason: 'replicas',
        detail: `no replica count puts ${gpusPerWorker(f.shape)}-GPU workers within [${minBudget}, ${budget}] GPUs`,
      });
    }
    for (const config of groups) members.push({ config, backends: [backend], kv_capacity_tokens_per_rank: f.kvTokensPerRank });
  }
  return { members, pruned };
}

/**
 * Disaggregated configs of one backend: prefill and decode enumerated independently (each its own
 * shape and replicas), paired when their total lies within [min_gpu_budget, gpu_budget].
 */
export function enumerateDisagg(ctx: EnumerationContext, backend: Backend): { members: PoolMember[]; pruned: PrunedShape[] } {
  const { budget, minBudget } = validateContext(ctx);
  const mode = backendModeViolation(backend, 'prefill');
  if (mode) return { members: [], pruned: [] };
  const prefill = enumerateShapes(ctx, backend, 'prefill');
  const decode = enumerateShapes(ctx, backend, 'decode');
  // Each role leaves at least one GPU for the other.
  const expand = (fs: FeasibleShape[]) =>
    fs.flatMap((f) => groupsOf(f.shape, 1, budget - 1).map((group) => ({ group, kv: f.kvTokensPerRank, gpus: gpusPerWorker(group) * group.replicas })));
  const pGroups = expand(prefill.feasible);
  const dGroups = expand(decode.feasible);
  const members: PoolMember[] = [];
  for (const p of pGroups) {
    for (const d of dGroups) {
      const total = p.gpus + d.gpus;
      if (total < minBudget || total > budget) continue;
      members.push({
        config: { prefill: p.group, decode: d.group },
        backends: [backend],
        kv_capacity_tokens_per_rank: { prefill: p.kv, decode: d.kv },
      });
    }
  }
  return { members, pruned: [...prefill.pruned, ...decode.pruned] };
}

/** Merges per-backend members: one entry per config, annotated with every backend it is legal for. */
export function unionMembers(perBackend: PoolMember[][]): PoolMember[] {
  const byId = new Map<string, PoolMember>();
  for (const list of perBackend) {
    for (const m of list) {
      const id = configId(m.config);
      const prev = byId.get(id);
      if (!prev) {
        byId.set(id, { ...m, backends: [...m.backends] } as PoolMember);
        continue;
      }
      prev.backends = sortBackends([...prev.backends, ...m.backends]);
      const a = prev.kv_capacity_tokens_per_rank;
      const b = m.kv_capacity_tokens_per_rank;
      prev.kv_capacity_tokens_per_rank =
        typeof a === 'number' && typeof b === 'number'
          ? Math.min(a, b)
          : typeof a === 'object' && typeof b === 'object'
            ? { prefill: Math.min(a.prefill, b.prefill), decode: Math.min(a.decode, b.decode) }
            : a;
    }
  }
  return [...byId.values()].sort((x, y) => compareConfigs(x.config, y.config));
}

function summarizePruned(pruned: PrunedShape[]): string {
  const counts = new Map<string, number>();
  for (const p of pruned) counts.set(p.reason, (counts.get(p.reason) ?? 0) + 1);
  return [...counts.entries()].map(([r, n]) => `${r}×${n}`).join(', ');
}

/**
 * One deployment_mode branch: the union over `backends` of their enumerated configs. A backend with no
 * viable config is dropped (with its reason); no viable backend at all → NoViableParallelConfig.
 */
export function enumerateBranch(ctx: EnumerationContext, mode: DeploymentMode, backends: readonly Backend[]): BranchPool {
  const perBackend: PoolMember[][] = [];
  const pruned: PrunedShape[] = [];
  const dropped: DroppedBackend[] = [];
  for (const backend of sortBackends(backends)) {
    const modeViolation = mode === 'disagg' ? backendModeViolation(backend, 'prefill') : null;
    if (modeViolation) {
      dropped.push({ backend, reason: modeViolation.detail });
      continue;
    }
    const r = mode === 'agg' ? enumerateAgg(ctx, backend) : enumerateDisagg(ctx, backend);
    pruned.push(...r.pruned);
    if (r.members.length === 0) {
      const why = summarizePruned(r.pruned);
      dropped.push({
        backend,
        reason: `no KV-feasible ${mode} parallel config within gpu_budget ${ctx.gpuBudget}${why ? ` (pruned: ${why})` : ''}`,
      });
    } else perBackend.push(r.members);
  }
  const members = unionMembers(perBackend);
  if (members.length === 0) {
    const detail = dropped.map((d) => `${d.backend}: ${d.reason}`).join('; ') || 'no backend listed';
    throw new NoViableParallelConfig(mode, `${detail} (max_seq_len ${ctx.facts.maxSeqLen})`);
  }
  return branchPool(mode, ctx.gpuBudget, ctx.facts.isMoe, members, dropped, pruned);
}

/**
 * Builds every requested branch; a branch that fails with NoViableParallelConfig is skipped with a
 * warning, and only when no branch is viable does the run fail (with every branch's reason).
 */
export function planBranches(
  modes: readonly DeploymentMode[],
  build: (mode: DeploymentMode) => BranchPool,
): { branches: BranchPool[]; warnings: string[] } {
  const branches: BranchPool[] = [];
  const warnings: string[] = [];
  const failures: string[] = [];
  for (const mode of modes) {
    try {
      const b = build(mode);
      for (const d of b.dropped) warnings.push(`deployment_mode ${mode}: backend ${d.backend} dropped — ${d.reason}`);
      branches.push(b);
    } catch (err) {
      if (!(err instanceof NoViableParallelConfig)) throw err;
      warnings.push(`deployment_mode ${mode} skipped: ${err.message}`);
      failures.push(err.message);
    }
  }
  if (branches.length === 0) {
    throw new NoViableParallelConfig(modes.join('+') || 'none', `no deployment_mode is viable — ${failures.join(' | ')}`);
  }
  return { branches, warnings };
}
