// Point → concrete candidate: projects the latent parallel request onto the branch pool, fills every
// knob from the point or its pinned value, expands the planner composites, wires the load-predictor
// winner, derives the kv_load_ratio concurrency. Deterministic: a pure function of (context, point),
// so it may run in an activity while the workflow keeps only the small BranchStudyPlan.
import { ENGINE_LIST_KNOBS, type EngineRole } from '../../config/choices.js';
import type { SmartSearchConfig } from '../../config/schema.js';
import type { Backend } from '../../model/arch.js';
import { encodePool, latentSpace, type LatentValue } from '../../parallel/latent.js';
import { compareConfigs, membersFor, type ParallelPool, type PoolMember } from '../../parallel/pool.js';
import { projectParallel } from '../../parallel/project.js';
import { usedGpus, type ParallelConfig, type WorkerGroup } from '../../parallel/shape.js';
import { canonicalJson } from '../../config/canonical-json.js';
import { kvLoadConcurrency } from '../../replay/workload/kv-load.js';
import type { BranchDimensions } from '../dimensions.js';
import { BUILTIN_PROVIDERS } from '../providers/builtin.js';
import { adapterPrefix, type AdapterSearchPlan } from '../providers/provider.js';
import type { DimensionValue } from '../optimizer/space.js';
import { enumerateSpace } from '../optimizer/thorough.js';
import type { Dimension, Point } from '../optimizer/space.js';
import type { FlatCandidate, ProjectionRecord } from '../sweepResult.js';
import type { ReasonCategory } from '../trial.js';
import { THOROUGH_INDEX } from './plan.js';

export interface MaterializedCandidate {
  key: string;
  candidate: FlatCandidate | null;
  used_gpus: number;
  concurrency: number | null;
  projection: ProjectionRecord | null;
  /** Set when the candidate cannot be replayed (told to the optimizer as infeasible, never scored). */
  rejection: { reason_category: ReasonCategory; reason: string } | null;
}

/** Per-rank KV tokens of the role that sizes a kv_load_ratio workload, for one concrete candidate. */
export type CandidateKvTokens = (candidate: FlatCandidate) => number;

export interface MaterializeInputs {
  config: SmartSearchConfig;
  branch: BranchDimensions;
  pool: ParallelPool;
  /** The built-in providers' search plans (router, planner with its load-predictor winners). */
  providers: readonly AdapterSearchPlan<unknown>[];
  kvTokensPerRank: CandidateKvTokens;
}

/** Latent requests whose projection `projectPoint` remembers (cleared when full). */
const PROJECTION_MEMO = 65_536;

const ROLES: Record<'agg' | 'disagg', EngineRole[]> = { agg: ['agg'], disagg: ['prefill', 'decode'] };

export class BranchMaterializer {
  private readonly latentNames: Set<string>;
  private readonly constants: Record<string, LatentValue>;
  private thoroughPairs: { member: PoolMember; backend: Backend }[] | null = null;
  private thoroughKnobs: Point[] | null = null;
  private readonly projected = new Map<string, Record<string, LatentValue>>();
  private readonly projectedPoints = new Map<string, Point>();
  /** Each provider's pinned parameters (prefix stripped), in the branch's pinned order. */
  private readonly pinnedSelections = new Map<string, (readonly [string, DimensionValue])[]>();
  private readonly adapterConfigs = new Map<string, string>();
  private readonly providerDims = new Map<string, Dimension[]>();

  constructor(private readonly inp: MaterializeInputs) {
    const space = latentSpace(inp.pool, inp.branch.deployment_mode);
    this.latentNames = new Set(space.features.map((f) => f.name));
    this.constants = space.constants;
  }

  get mode(): 'agg' | 'disagg' {
    return this.inp.branch.deployment_mode;
  }

  /** Searched non-parallel dimensions (what `thorough` enumerates beside the pool). */
  knobDimensions(): Dimension[] {
    return this.inp.branch.dimensions.filter((d) => !this.latentNames.has(d.name) && d.name !== 'backend');
  }

  /** The complete enumeration's size: every (legal pool member, backend) × every knob combination. */
  thoroughSize(): number {
    return this.pairs().length * this.knobPoints().length;
  }

  private pairs(): { member: PoolMember; backend: Backend }[] {
    if (!this.thoroughPairs) {
      const out: { member: PoolMember; backend: Backend }[] = [];
      for (const backend of this.inp.branch.backends) for (const member of membersFor(this.inp.pool, backend)) out.push({ member, backend });
      this.thoroughPairs = out;
    }
    return this.thoroughPairs;
  }

  private knobPoints(): Point[] {
    if (!this.thoroughKnobs) {
      const dims = this.knobDimensions();
      this.thoroughKnobs = dims.length === 0 ? [{}] : enumerateSpace(dims);
    }
    return this.thoroughKnobs;
  }

  materialize(point: Point): MaterializedCandidate {
    if (typeof point[THOROUGH_INDEX] === 'number') return this.materializeThorough(point[THOROUGH_INDEX] as number);
    const backend = this.value(point, 'backend') as Backend;
    const { pool } = this.inp;
    let parallel: ParallelConfig;
    let projection: ProjectionRecord | null = null;
    if (pool.members.length === 1) {
      parallel = pool.members[0].config;
    } else {
      const request: Record<string, LatentValue> = { ...this.constants };
      for (const name of this.latentNames) request[name] = point[name] as LatentValue;
      const p = projectParallel(pool, this.mode, backend, request);
      parallel = p.parallel_config;
      projection = {
        requested: p.requested,
        actual: p.actual,
        distance: p.distance,
        mode_projected: p.mode_projected,
        parallel_config: p.parallel_config as ProjectionRecord['parallel_config'],
      };
    }
    return this.finish(point, backend, parallel, projection);
  }

  /**
   * The point `materialize` would evaluate for `point`: its latent parallel features replaced by those
   * of the legal config they project onto (every other dimension unchanged). Pure; idempotent (a
   * legal encoding projects onto its own config). The optimizer's projector (see optimizer.ts).
   */
  projectPoint(point: Point): Point {
    // The optimizer projects every acquisition candidate of every ask, and successive asks share most
    // of them (anchors' neighbourhoods, observations): remembered whole, since the dead-knob pass
    // (canonicalKnobs) costs as much as the projection. A copy each time: callers own their points.
    let key = '';
    for (const name in point) {
      const v = point[name];
      key += `${name}\u0001${typeof v === 'string' ? `"${v}` : Object.is(v, -0) ? '-0' : String(v)}\u0002`;
    }
    const known = this.projectedPoints.get(key);
    if (known) return { ...known };
    const out = this.projectUncached(point);
    if (this.projectedPoints.size >= PROJECTION_MEMO) this.projectedPoints.clear();
    this.projectedPoints.set(key, out);
    return { ...out };
  }

  private projectUncached(point: Point): Point {
    const { pool } = this.inp;
    const backend = this.value(point, 'backend') as Backend;
    if (pool.members.length === 1 || this.latentNames.size === 0) return this.canonicalKnobs(point, backend);
    let key = backend;
    for (const name of this.latentNames) key += `\u0001${String(point[name])}`;
    let actual = this.projected.get(key);
    if (!actual) {
      const request: Record<string, LatentValue> = { ...this.constants };
      for (const name of this.latentNames) request[name] = point[name] as LatentValue;
      actual = projectParallel(pool, this.mode, backend, request).actual;
      // Candidates share latent parts (knob variations of one request): a bounded per-process memo.
      if (this.projected.size >= PROJECTION_MEMO) this.projected.clear();
      this.projected.set(key, actual);
    }
    const out: Point = { ...point };
    for (const name of this.latentNames) if (name in out && name in actual) out[name] = actual[name];
    return this.canonicalKnobs(out, backend);
  }

  /**
   * `point` with its latent parallel features set to the smallest legal config for its backend (fewest
   * GPUs, then the projection's lexicographic shape order), dead knobs canonical: the optimizer's low
   * design corner.
   */
  lowCorner(point: Point): Point {
    const { pool } = this.inp;
    const backend = this.value(point, 'backend') as Backend;
    if (pool.members.length === 1 || this.latentNames.size === 0) return this.canonicalKnobs(point, backend);
    const enc = encodePool(pool, this.mode);
    let best = -1;
    pool.members.forEach((m, i) => {
      if (!m.backends.includes(backend)) return;
      if (best < 0) {
        best = i;
        return;
      }
      const b = pool.members[best].config;
      const d = usedGpus(m.config) - usedGpus(b);
      if (d < 0 || (d === 0 && compareConfigs(m.config, b) < 0)) best = i;
    });
    if (best < 0) return this.projectPoint(point);
    const out: Point = { ...point };
    for (const name of this.latentNames) if (name in out && name in enc[best]) out[name] = enc[best][name];
    return this.projectPoint(out);
  }

  /**
   * The optimizer's low design corners: `lowCorner(point)`, then the same for every other backend of the
   * branch (when the backend is searched), in the branch's backend order.
   */
  lowCorners(point: Point): Point[] {
    const own = this.value(point, 'backend');
    const out = [this.lowCorner(point)];
    if (!('backend' in point)) return out;
    for (const b of this.inp.branch.backends) if (b !== own && membersFor(this.inp.pool, b).length > 0) out.push(this.lowCorner({ ...point, backend: b }));
    return out;
  }

  /**
   * `point` with every searched adapter knob that its provider's replay config ignores (given the other
   * knobs: e.g. the router weights under round_robin, the planner sensitivities with scaling disabled)
   * set to the dimension's first value. The candidate is unchanged (the knob was dead), so points that
   * differ only in dead knobs, which are the same evaluation, become the same point.
   */
  private canonicalKnobs(point: Point, backend: Backend): Point {
    let out = point;
    for (const plan of this.inp.providers) {
      const dims = this.adapterDims(plan.provider);
      if (dims.length === 0) continue;
      const provider = BUILTIN_PROVIDERS.find((p) => p.name === plan.provider);
      if (!provider) throw new Error(`no provider '${plan.provider}'`);
      const configOf = (p: Point): string => {
        const sel = this.selection(p, plan.provider);
        let key = `${plan.provider}\u0001${backend}`;
        for (const k of Object.keys(sel).sort()) key += `\u0001${k}=${String(sel[k])}`;
        let c = this.adapterConfigs.get(key);
        if (c === undefined) {
          c = canonicalJson(provider.materializeReplay(plan, sel, { deployment_mode: this.mode, backend, config: this.inp.config }).config);
          if (this.adapterConfigs.size >= PROJECTION_MEMO) this.adapterConfigs.clear();
          this.adapterConfigs.set(key, c);
        }
        return c;
      };
      // Until nothing changes (a knob may turn dead once another one is canonical): at most one pass per knob.
      // `current` is configOf(out), kept as `out` changes (a knob is only dropped when the config stays).
      let current = configOf(out);
      for (let pass = 0; pass <= dims.length; pass++) {
        let changed = false;
        for (const d of dims) {
          const first = d.values[0];
          if (out[d.name] === first) continue;
          const q = { ...out, [d.name]: first };
          if (configOf(q) === current) {
            out = q;
            changed = true;
          }
        }
        if (!changed) break;
      }
    }
    return out;
  }

  /** The searched dimensions of one provider (prefixed names), memoized. */
  private adapterDims(provider: string): Dimension[] {
    let dims = this.providerDims.get(provider);
    if (!dims) {
      const prefix = adapterPrefix(provider);
      dims = this.inp.branch.dimensions.filter((d) => d.name.startsWith(prefix));
      this.providerDims.set(provider, dims);
    }
    return dims;
  }

  private materializeThorough(index: number): MaterializedCandidate {
    const knobs = this.knobPoints();
    const pair = this.pairs()[Math.floor(index / knobs.length)];
    if (!pair) throw new RangeError(`thorough index ${index} outside 0..${this.thoroughSize() - 1}`);
    return this.finish(knobs[index % knobs.length], pair.backend, pair.member.config, null);
  }

  /** A knob's value for this point: searched (in the point) or pinned in the branch. */
  private value(point: Point, name: string): unknown {
    if (name in point) return point[name];
    if (name in this.inp.branch.pinned) return this.inp.branch.pinned[name];
    throw new Error(`dimension '${name}' is neither searched nor pinned in the ${this.mode} branch`);
  }

  /** One provider's local parameter values for this point (searched, else pinned), prefix stripped. */
  private selection(point: Point, provider: string): Record<string, DimensionValue> {
    const prefix = adapterPrefix(provider);
    let pinned = this.pinnedSelections.get(provider);
    if (!pinned) {
      pinned = Object.entries(this.inp.branch.pinned).flatMap(([k, v]) => (k.startsWith(prefix) ? [[k.slice(prefix.length), v as DimensionValue] as const] : []));
      this.pinnedSelections.set(provider, pinned);
    }
    const out: Record<string, DimensionValue> = {};
    for (const [k, v] of pinned) out[k] = v;
    for (const k in point) if (k.startsWith(prefix)) out[k.slice(prefix.length)] = point[k];
    return out;
  }

  private finish(point: Point, backend: Backend, parallel: ParallelConfig, projection: ProjectionRecord | null): MaterializedCandidate {
    const { config } = this.inp;
    const ss = config.search_space;
    const engine: Record<string, number | boolean | null> = {};
    for (const role of ROLES[this.mode]) for (const knob of ENGINE_LIST_KNOBS[role]) engine[knob] = this.value(point, knob) as number;

    const adapters: Record<string, Record<string, unknown>> = {};
    for (const plan of this.inp.providers) {
      const provider = BUILTIN_PROVIDERS.find((p) => p.name === plan.provider);
      if (!provider) throw new Error(`no provider '${plan.provider}'`);
      adapters[plan.provider] = provider.materializeReplay(plan, this.selection(point, plan.provider), {
        deployment_mode: this.mode,
        backend,
        config,
      }).config;
    }

    const candidate: FlatCandidate = {
      deployment_mode: this.mode,
      backend,
      engine,
      parallel_config: parallel as FlatCandidate['parallel_config'],
      adapters,
    };

    let concurrency: number | null = null;
    let rejection: MaterializedCandidate['rejection'] = null;
    const ratio = config.workload.kv_load_ratio;
    if (ratio !== undefined) {
      const r = Array.isArray(ratio) ? ((point.kv_load_ratio ?? this.inp.branch.pinned.kv_load_ratio ?? ratio[1]) as number) : ratio;
      if (Array.isArray(ratio)) candidate.kv_load_ratio = r;
      const role: WorkerGroup = 'prefill' in parallel ? parallel.decode : parallel;
      const blockSize = this.mode === 'disagg' ? ss.decode_block_size : ss.agg_block_size;
      const perRank = this.inp.kvTokensPerRank(candidate);
      const isl = config.workload.isl ?? 0;
      const osl = config.workload.osl ?? 0;
      concurrency = kvLoadConcurrency({ perRankTokens: perRank, blockSize, attentionDp: role.attention_dp, replicas: role.replicas, isl, osl, ratio: r });
      if (concurrency <= 0) {
        rejection = { reason_category: 'kv_capacity', reason: `no KV budget: ${perRank} tokens per rank leave no room for a ${isl}+${osl} request` };
      }
    }
    const used = usedGpus(parallel);
    if (used > ss.gpu_budget) rejection = { reason_category: 'gpu_budget', reason: `uses ${used} GPUs, budget ${ss.gpu_budget}` };
    return { key: canonicalJson(candidate), candidate, used_gpus: used, concurrency, projection, rejection };
  }
}
