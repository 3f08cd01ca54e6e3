// The latent parallel features the optimizer searches instead of concrete shapes (seed "Internal Vizier
// parameters", both tables): how a config encodes to them, and the per-branch space (ranges, defaults,
// constants). Pure; imported by workflow code.
import type { ParallelPool, PoolMember } from './pool.js';
import { gpusPerWorker, isDisagg, type DeploymentMode, type ParallelConfig, type WorkerGroup } from './shape.js';

export type LatentValue = number | string;

export type LatentFeature =
  | { name: string; kind: 'continuous'; range: [number, number]; default: number }
  | { name: string; kind: 'discrete'; values: number[]; log_scale: true; default: number }
  | { name: string; kind: 'categorical'; values: string[]; default: string };

export interface LatentSpace {
  /** Features with more than one value in the pool, in the seed's table order. */
  features: LatentFeature[];
  /** Single-valued features: omitted from the search and injected as these values. */
  constants: Record<string, LatentValue>;
}

type Transform = 'linear' | 'log2';

interface FeatureDef {
  name: string;
  kind: 'continuous' | 'discrete' | 'categorical';
  /** Numeric features: how deltas are measured (engine sizes in log2). */
  transform?: Transform;
  /** Categorical features: the order values are listed in (the first present is the default). */
  order?: readonly string[];
  moeOnly?: boolean;
  /** Continuous features: the seed's nominal default, clipped to the pool's range. */
  nominal?: number;
  encode(c: ParallelConfig, gpuBudget: number): LatentValue;
}

const attentionMode = (g: WorkerGroup): string => (g.attention_dp > 1 ? 'dp' : 'tp');
const ffnMode = (g: WorkerGroup): string => (g.moe_ep > 1 ? 'ep' : 'tp');
const groupGpus = (g: WorkerGroup): number => gpusPerWorker(g) * g.replicas;

function agg(c: ParallelConfig): WorkerGroup {
  if (isDisagg(c)) throw new Error('expected an agg parallel config, got a disagg one');
  return c;
}
function role(c: ParallelConfig, r: 'prefill' | 'decode'): WorkerGroup {
  if (!isDisagg(c)) throw new Error('expected a disagg parallel config, got an agg one');
  return c[r];
}

const ATTENTION_ORDER = ['tp', 'dp'] as const;
const FFN_ORDER = ['ep', 'tp'] as const;

function engineDefs(prefix: 'agg' | 'prefill' | 'decode', pick: (c: ParallelConfig) => WorkerGroup): FeatureDef[] {
  return [
    {
      name: `${prefix}_num_gpus_per_engine_target`,
      kind: 'discrete',
      transform: 'log2',
      encode: (c) => gpusPerWorker(pick(c)),
    },
  ];
}

function modeDefs(prefix: 'agg' | 'prefill' | 'decode', pick: (c: ParallelConfig) => WorkerGroup): FeatureDef[] {
  return [
    { name: `${prefix}_attention_mode`, kind: 'categorical', order: ATTENTION_ORDER, encode: (c) => attentionMode(pick(c)) },
  ];
}

function ffnDefs(prefix: 'agg' | 'prefill' | 'decode', pick: (c: ParallelConfig) => WorkerGroup): FeatureDef[] {
  return [{ name: `${prefix}_ffn_mode`, kind: 'categorical', order: FFN_ORDER, moeOnly: true, encode: (c) => ffnMode(pick(c)) }];
}

const AGG_DEFS: FeatureDef[] = [
  {
    name: 'used_gpu_ratio',
    kind: 'continuous',
    transform: 'linear',
    nominal: 1.0,
    encode: (c, budget) => groupGpus(agg(c)) / budget,
  },
  ...engineDefs('agg', agg),
  ...modeDefs('agg', agg),
  ...ffnDefs('agg', agg),
];

const pre = (c: ParallelConfig) => role(c, 'prefill');
const dec = (c: ParallelConfig) => role(c, 'decode');

const DISAGG_DEFS: FeatureDef[] = [
  {
    name: 'used_gpu_ratio',
    kind: 'continuous',
    transform: 'linear',
    nominal: 1.0,
    encode: (c, budget) => (groupGpus(pre(c)) + groupGpus(dec(c))) / budget,
  },
  {
    name: 'prefill_gpu_share',
    kind: 'continuous',
    transform: 'linear',
    nominal: 0.5,
    encode: (c) => groupGpus(pre(c)) / (groupGpus(pre(c)) + groupGpus(dec(c))),
  },
  ...engineDefs('prefill', pre),
  ...engineDefs('decode', dec),
  ...modeDefs('prefill', pre),
  ...modeDefs('decode', dec),
  ...ffnDefs('prefill', pre),
  ...ffnDefs('decode', dec),
];

/** Every feature the seed defines for a mode (including MoE-only ones), in table order. */
export function featureDefs(mode: DeploymentMode, isMoe: boolean): FeatureDef[] {
  const defs = mode === 'agg' ? AGG_DEFS : DISAGG_DEFS;
  return defs.filter((d) => isMoe || !d.moeOnly);
}

/** Names `--request` may carry for a mode: all the seed's feature names, whether searched or constant. */
export function requestableNames(mode: DeploymentMode): string[] {
  return (mode === 'agg' ? AGG_DEFS : DISAGG_DEFS).map((d) => d.name);
}

export function featureDef(mode: DeploymentMode, name: string): FeatureDef | undefined {
  return (mode === 'agg' ? AGG_DEFS : DISAGG_DEFS).find((d) => d.name === name);
}

/** The actual latent features of one config (MoE-only features only for MoE pools). */
export function encodeConfig(c: ParallelConfig, mode: DeploymentMode, gpuBudget: number, isMoe: boolean): Record<string, LatentValue> {
  const out: Record<string, LatentValue> = {};
  for (const d of featureDefs(mode, isMoe)) out[d.name] = d.encode(c, gpuBudget);
  return out;
}

const encodingCache = new WeakMap<ParallelPool, Record<string, LatentValue>[]>();

/** Encodings of every pool member, in pool order (memoized per pool object; pools are never mutated). */
export function encodePool(pool: ParallelPool, mode: DeploymentMode): Record<string, LatentValue>[] {
  if (pool.mode !== mode) throw new Error(`pool is a ${pool.mode} pool, asked for ${mode}`);
  let enc = encodingCache.get(pool);
  if (!enc) {
    enc = pool.members.map((m: PoolMember) => encodeConfig(m.config, mode, pool.gpuBudget, pool.isMoe));
    encodingCache.set(pool, enc);
  }
  return enc;
}

/** Feasible value closest in log space to sqrt(min × max); a tie picks the smaller value. */
export function geometricCentre(values: readonly number[]): number {
  if (values.length === 0) throw new Error('geometricCentre of an empty set');
  const sorted = [...values].sort((a, b) => a - b);
  const centre = (Math.log2(sorted[0]) + Math.log2(sorted[sorted.length - 1])) / 2;
  let best = sorted[0];
  let bestGap = Math.abs(Math.log2(best) - centre);
  for (const v of sorted.slice(1)) {
    const gap = Math.abs(Math.log2(v) - centre);
    if (gap < bestGap - 1e-12) {
      best = v;
      bestGap = gap;
    }
  }
  return best;
}

const clip = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));

/**
 * The branch's latent space, rebuilt from its pool (the union over viable backends): ranges and defaults
 * as the seed's tables, single-valued features moved to `constants`. A one-config pool has no features.
 */
export function latentSpace(pool: ParallelPool, mode: DeploymentMode): LatentSpace {
  const enc = encodePool(pool, mode);
  let space = spaceCache.get(pool);
  if (!space) {
    space = buildSpace(pool, mode, enc);
    spaceCache.set(pool, space);
  }
  // Callers get their own copy so the memoized space stays intact (no structuredClone: workflow sandbox).
  return {
    features: space.features.map((f) =>
      f.kind === 'continuous' ? { ...f, range: [f.range[0], f.range[1]] } : ({ ...f, values: [...f.values] } as LatentFeature),
    ),
    constants: { ...space.constants },
  };
}

const spaceCache = new WeakMap<ParallelPool, LatentSpace>();

function buildSpace(pool: ParallelPool, mode: DeploymentMode, enc: Record<string, LatentValue>[]): LatentSpace {
  if (pool.members.length === 0) throw new Error(`empty ${mode} parallel pool`);
  const features: LatentFeature[] = [];
  const constants: Record<string, LatentValue> = {};
  for (const d of featureDefs(mode, pool.isMoe)) {
    const present = new Set(enc.map((e) => e[d.name]));
    if (present.size === 1) {
      constants[d.name] = [...present][0];
      continue;
    }
    if (d.kind === 'continuous') {
      const nums = [...present] as number[];
      const lo = Math.min(...nums);
      const hi = Math.max(...nums);
      features.push({ name: d.name, kind: 'continuous', range: [lo, hi], default: clip(d.nominal ?? lo, lo, hi) });
    } else if (d.kind === 'discrete') {
      const values = ([...present] as number[]).sort((a, b) => a - b);
      features.push({ name: d.name, kind: 'discrete', values, log_scale: true, default: geometricCentre(values) });
    } else {
      const values = (d.order ?? []).filter((v) => present.has(v));
      features.push({ name: d.name, kind: 'categorical', values, default: values[0] });
    }
  }
  return { features, constants };
}

/** The first trial's request: every feature at its default, constants injected. */
export function defaultRequest(pool: ParallelPool, mode: DeploymentMode): Record<string, LatentValue> {
  const space = latentSpace(pool, mode);
  const out: Record<string, LatentValue> = {};
  for (const d of featureDefs(mode, pool.isMoe)) {
    const f = space.features.find((x) => x.name === d.name);
    out[d.name] = f ? f.default : space.constants[d.name];
  }
  return out;
}

export type { Transform };
