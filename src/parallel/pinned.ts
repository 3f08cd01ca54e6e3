// User-pinned `parallel_configs`: each entry is judged by the enumerator's rules (except the pure-pattern
// preference) and kept for the backends where it is legal. One pin bypasses projection; several form the
// whole pool. A pin legal for no backend fails fast, before any replay, naming each backend's reason.
import type { Backend } from '../model/arch.js';
import { InputError } from '../errors.js';
import { checkShape, type KvTokensPerRank, type Role, type ShapeFacts, type Violation } from './legality.js';
import { unionMembers } from './enumerate.js';
import { branchPool, canonicalGroup, sortBackends, type BranchPool, type DroppedBackend, type PoolMember, type PrunedShape } from './pool.js';
import { usedGpus, type DeploymentMode, type ParallelConfig, type WorkerGroup } from './shape.js';

/** One pinned shape as YAML carries it: omitted dims default to 1, `replicas` to 1. */
export interface PinnedShapeInput {
  tp?: number;
  pp?: number;
  attention_dp?: number;
  moe_tp?: number;
  moe_ep?: number;
  replicas?: number;
}

export type PinnedEntry = PinnedShapeInput | { prefill: PinnedShapeInput; decode: PinnedShapeInput };

export interface PinnedContext {
  facts: ShapeFacts;
  kvTokensPerRank: KvTokensPerRank;
  gpuBudget: number;
}

const SHAPE_KEYS = ['tp', 'pp', 'attention_dp', 'moe_tp', 'moe_ep', 'replicas'] as const;

function isDisaggEntry(e: PinnedEntry): e is { prefill: PinnedShapeInput; decode: PinnedShapeInput } {
  return typeof e === 'object' && e !== null && ('prefill' in e || 'decode' in e);
}

export function describePin(e: PinnedEntry): string {
  const flat = (s: PinnedShapeInput) =>
    `{${SHAPE_KEYS.filter((k) => s[k] !== undefined)
      .map((k) => `${k}: ${s[k]}`)
      .join(', ')}}`;
  return isDisaggEntry(e) ? `{prefill: ${flat(e.prefill ?? {})}, decode: ${flat(e.decode ?? {})}}` : flat(e);
}

function normalizeShape(s: PinnedShapeInput, label: string): WorkerGroup {
  if (typeof s !== 'object' || s === null) throw new InputError(`${label}: expected a shape dict`);
  const unknown = Object.keys(s).filter((k) => !(SHAPE_KEYS as readonly string[]).includes(k));
  if (unknown.length > 0) throw new InputError(`${label}: unknown key(s) ${unknown.join(', ')} (allowed: ${SHAPE_KEYS.join(', ')})`);
  if (s.tp === undefined) throw new InputError(`${label}: 'tp' is required`);
  const g = canonicalGroup({
    tp: s.tp,
    pp: s.pp ?? 1,
    attention_dp: s.attention_dp ?? 1,
    moe_tp: s.moe_tp ?? 1,
    moe_ep: s.moe_ep ?? 1,
    replicas: s.replicas ?? 1,
  });
  for (const k of SHAPE_KEYS) {
    if (!Number.isInteger(g[k]) || g[k] < 1) throw new InputError(`${label}: ${k} must be a positive integer (got ${g[k]})`);
  }
  return g;
}

/** Fills defaults and checks the entry's structure against the branch's deployment mode. */
export function normalizePin(entry: PinnedEntry, mode: DeploymentMode, label: string): ParallelConfig {
  if (mode === 'disagg') {
    if (!isDisaggEntry(entry) || !entry.prefill || !entry.decode) {
      throw new InputError(`${label}: a disagg parallel_configs entry needs both 'prefill' and 'decode' shape dicts`);
    }
    const extra = Object.keys(entry).filter((k) => k !== 'prefill' && k !== 'decode');
    if (extra.length > 0) throw new InputError(`${label}: unknown key(s) ${extra.join(', ')} in a disagg entry`);
    return { prefill: normalizeShape(entry.prefill, `${label}.prefill`), decode: normalizeShape(entry.decode, `${label}.decode`) };
  }
  if (isDisaggEntry(entry)) throw new InputError(`${label}: an agg parallel_configs entry is a flat shape dict, not prefill/decode`);
  return normalizeShape(entry, label);
}

type PinVerdict = { ok: true; member: PoolMember } | { ok: false; violation: Violation; role: Role; group: WorkerGroup };

function judgePin(config: ParallelConfig, backend: Backend, ctx: PinnedContext): PinVerdict {
  const roles: [Role, WorkerGroup][] =
    'prefill' in config ? [['prefill', config.prefill], ['decode', config.decode]] : [['agg', config]];
  const kv: number[] = [];
  for (const [role, group] of roles) {
    const { replicas: _r, ...shape } = group;
    const v = checkShape(shape, backend, role, ctx.facts, ctx.kvTokensPerRank, false);
    if (!v.ok) return { ok: false, violation: { reason: v.reason, detail: v.detail }, role, group };
    kv.push(v.kvTokensPerRank);
  }
  const used = usedGpus(config);
  if (used > ctx.gpuBudget) {
    return {
      ok: false,
      violation: { reason: 'gpu_budget', detail: `uses ${used} GPUs, over gpu_budget ${ctx.gpuBudget}` },
      role: roles[0][0],
      group: roles[0][1],
    };
  }
  const member: PoolMember =
    'prefill' in config
      ? { config, backends: [backend], kv_capacity_tokens_per_rank: { prefill: kv[0], decode: kv[1] } }
      : { config, backends: [backend], kv_capacity_tokens_per_rank: kv[0] };
  return { ok: true, member };
}

/**
 * The branch pool of a pinned `parallel_configs` list. Throws InputError for a malformed pin or for a
 * pin that no listed backend can run (message: the pin and every backend's reason).
 */
export function pinnedBranch(
  ctx: PinnedContext,
  mode: DeploymentMode,
  backends: readonly Backend[],
  pins: readonly PinnedEntry[],
): BranchPool {
  if (pins.length === 0) throw new InputError('parallel_configs is empty: nothing to pin (omit it to enumerate)');
  const ordered = sortBackends(backends);
  if (ordered.length === 0) throw new InputError(`deployment_mode ${mode}: no backend to run the pinned parallel_configs on`);
  const perBackend = new Map<Backend, PoolMember[]>(ordered.map((b) => [b, []]));
  const pruned: PrunedShape[] = [];
  pins.forEach((entry, i) => {
    const label = `parallel_configs[${i}] ${describePin(entry)}`;
    const config = normalizePin(entry, mode, label);
    const reasons: string[] = [];
    for (const backend of ordered) {
      const v = judgePin(config, backend, ctx);
      if (v.ok) {
        perBackend.get(backend)!.push(v.member);
        continue;
      }
      const { replicas: _r, ...shape } = v.group;
      pruned.push({ role: v.role, backend, shape, reason: v.violation.reason, detail: v.violation.detail });
      reasons.push(`${backend}: ${v.role === 'agg' ? '' : `${v.role} `}${v.violation.reason} — ${v.violation.detail}`);
    }
    if (reasons.length === ordered.length) {
      throw new InputError(`${label} is legal for no backend of deployment_mode ${mode}:\n  ${reasons.join('\n  ')}`);
    }
  });
  const dropped: DroppedBackend[] = ordered
    .filter((b) => perBackend.get(b)!.length === 0)
    .map((backend) => ({ backend, reason: 'none of the pinned parallel_configs is legal for it' }));
  const members = unionMembers([...perBackend.values()].filter((l) => l.length > 0));
  return branchPool(mode, ctx.gpuBudget, ctx.facts.isMoe, members, dropped, pruned);
}
