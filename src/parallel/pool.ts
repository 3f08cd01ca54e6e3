// A branch's parallel-config pool: the legal, KV-feasible configs of one deployment_mode, each annotated
// with the backends it is legal for. Enumeration and pinning both produce it; projection consumes it.
import type { Backend } from '../model/arch.js';
import { BACKENDS } from '../model/arch.js';
import type { Role, PruneReason } from './legality.js';
import type { DeploymentMode, DisaggParallelConfig, ParallelConfig, ParallelShape, WorkerGroup } from './shape.js';
import { isDisagg } from './shape.js';

export interface AggMember {
  config: WorkerGroup;
  /** Backends this config is legal and KV-feasible for, in BACKENDS order. */
  backends: Backend[];
  /** Per attention-DP rank; the smallest over `backends` (they may reserve memory differently). */
  kv_capacity_tokens_per_rank: number;
}

export interface DisaggMember {
  config: DisaggParallelConfig;
  backends: Backend[];
  kv_capacity_tokens_per_rank: { prefill: number; decode: number };
}

export type PoolMember = AggMember | DisaggMember;

export interface ParallelPool {
  mode: DeploymentMode;
  gpuBudget: number;
  /** Whether the model is MoE (adds the FFN-mode features even where every shape is 1 GPU). */
  isMoe: boolean;
  /** Sorted by `compareConfigs`; no two members share a config. */
  members: PoolMember[];
}

/** A shape the enumerator (or a pin) rejected, and why. */
export interface PrunedShape {
  role: Role;
  backend: Backend;
  shape: ParallelShape;
  reason: PruneReason;
  detail: string;
}

export interface DroppedBackend {
  backend: Backend;
  reason: string;
}

/** One deployment_mode branch: its pool plus what was pruned and which backends were dropped. */
export interface BranchPool extends ParallelPool {
  /** Backends with at least one config in the pool, in BACKENDS order. */
  backends: Backend[];
  dropped: DroppedBackend[];
  pruned: PrunedShape[];
}

function shapeKey(s: ParallelShape): number[] {
  return [s.tp, s.pp, s.attention_dp, s.moe_tp, s.moe_ep];
}

/** The lexicographic shape-and-replica key: the pool order and projection's final tie-break. */
export function configKey(c: ParallelConfig): number[] {
  if (isDisagg(c)) return [...shapeKey(c.prefill), c.prefill.replicas, ...shapeKey(c.decode), c.decode.replicas];
  return [...shapeKey(c), c.replicas];
}

export function compareConfigs(a: ParallelConfig, b: ParallelConfig): number {
  const ka = configKey(a);
  const kb = configKey(b);
  for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
    if (ka[i] !== kb[i]) return ka[i] - kb[i];
  }
  return ka.length - kb.length;
}

export function configId(c: ParallelConfig): string {
  return configKey(c).join(',');
}

export function sortBackends(backends: Iterable<Backend>): Backend[] {
  const set = new Set(backends);
  return BACKENDS.filter((b) => set.has(b));
}

/** Canonical dict-form copy (fixed key order) so JSON output and hashing are stable. */
export function canonicalGroup(g: WorkerGroup): WorkerGroup {
  return { tp: g.tp, pp: g.pp, attention_dp: g.attention_dp, moe_tp: g.moe_tp, moe_ep: g.moe_ep, replicas: g.replicas };
}

export function canonicalConfig(c: ParallelConfig): ParallelConfig {
  return isDisagg(c) ? { prefill: canonicalGroup(c.prefill), decode: canonicalGroup(c.decode) } : canonicalGroup(c);
}

export function membersFor(pool: ParallelPool, backend: Backend): PoolMember[] {
  return pool.members.filter((m) => m.backends.includes(backend));
}

/** A branch pool from its members; the branch's backends are those some member is legal for. */
export function branchPool(
  mode: DeploymentMode,
  gpuBudget: number,
  isMoe: boolean,
  members: PoolMember[],
  dropped: DroppedBackend[],
  pruned: PrunedShape[],
): BranchPool {
  return { mode, gpuBudget, isMoe, members, backends: sortBackends(members.flatMap((m) => m.backends)), dropped, pruned };
}
