// The Dynamo planner inside replay (dynamo-facts §5): a ScalingController running throughput scaling
// (forecast demand ÷ perf-model capacity at the SLA, every throughput interval) and/or load scaling
// (FPM regressions, ±1 replica when every engine agrees, every load interval). With both on, the
// throughput result is the floor load scaling moves above. The cluster applies the counts: new
// workers serve after startup_time, removed ones drain, and GPU-hours count every replica alive.
import type { EnginePerf } from '../../hardware/pass.js';
import { createForecaster, type Forecaster } from '../../forecast/index.js';
import { mtpTokensPerStep, type EngineConfig, type EngineRole } from '../engine/engine-config.js';
import type { ClusterTelemetry, EngineTelemetry, ForwardPassMetrics, RoleTelemetry, ScalingController } from '../scaling.js';
import { engineRps } from './engine-capacity.js';
import { fitPassTime, FpmWindow, type FpmKind, type PassTimeModel } from './fpm-regression.js';
import { clampToGpuBudget } from './gpu-budget.js';
import { estimateItlMs, estimateTtftMs, loadScalingStep, type EngineEstimate } from './load-scaling.js';
import type { PlannerSettings } from './settings.js';

/** What the planner knows of each role's engines (the resolved deployment's pools). */
export interface PlannerPool {
  role: EngineRole;
  engine: EngineConfig;
  perf: EnginePerf;
  gpusPerWorker: number;
  replicas: number;
}

/** Sizing of one throughput tick, kept for reports and tests. */
export interface ThroughputDecision {
  nowMs: number;
  demandRps: number;
  isl: number;
  osl: number;
  prefixHitRate: number;
  engineRps: number[];
  replicas: number[];
}

const EPS_MS = 1e-6;

function gcd(a: number, b: number): number {
  while (b > 0) [a, b] = [b, a % b];
  return a;
}

export class PlannerController implements ScalingController {
  readonly intervalMs: number;
  readonly throughputDecisions: ThroughputDecision[] = [];
  private nextThroughputMs: number;
  private nextLoadMs: number;
  private readonly windows = new Map<number, FpmWindow>();
  /**
   * Per engine since the last load tick: prompt tokens computed, passes run, and wall time of the
   * passes that carried prompt tokens (its prefill utilization).
   */
  private readonly intervalPrefill = new Map<number, number>();
  private readonly intervalPasses = new Map<number, number>();
  private readonly intervalPrefillMs = new Map<number, number>();
  private lastLoadMs = 0;
  private readonly forecast: { num: Forecaster; isl: Forecaster; osl: Forecaster } | null;
  /** Arrivals since the last throughput tick. */
  private tw = { arrivals: 0, islSum: 0, oslSum: 0, query: 0, hit: 0 };
  private lastIsl = 0;
  private lastOsl = 0;
  private hitRate = 0;
  private seenQuery = 0;
  private seenHit = 0;
  /** Throughput scaling's floor per pool (0 until its first tick). */
  private readonly floor: number[];
  private readonly tokensPerStep: number[];
  // Report counters.
  private ticks = 0;
  private throughputTicks = 0;
  private loadTicks = 0;
  private ups = 0;
  private downs = 0;
  private pendingHolds = 0;
  private budgetHolds = 0;
  private readonly maxReplicas: number[];

  constructor(
    readonly settings: PlannerSettings,
    private readonly pools: readonly PlannerPool[],
  ) {
    const t = settings.throughputScaling ? settings.throughputIntervalMs : Infinity;
    const l = settings.loadScaling ? settings.loadIntervalMs : Infinity;
    this.intervalMs = Number.isFinite(t) && Number.isFinite(l) ? gcd(Math.round(t), Math.round(l)) || Math.min(t, l) : Math.min(t, l);
    this.nextThroughputMs = t;
    this.nextLoadMs = l;
    this.forecast = settings.throughputScaling
      ? { num: createForecaster(settings.predictor), isl: createForecaster(settings.predictor), osl: createForecaster(settings.predictor) }
      : null;
    this.floor = pools.map(() => 0);
    this.tokensPerStep = pools.map((p) => mtpTokensPerStep(p.engine.nextn));
    this.maxReplicas = pools.map((p) => p.replicas);
  }

  observePass(role: EngineRole, worker: number, fpm: ForwardPassMetrics): void {
    if (!this.settings.loadScaling) return;
    // A prefill engine's regression is over prefill passes, a decode engine's over decode passes.
    if (role === 'prefill' && fpm.prefillTokens <= 0) return;
    if (role === 'decode' && fpm.decodeSeqs <= 0) return;
    let w = this.windows.get(worker);
    if (!w) this.windows.set(worker, (w = new FpmWindow(this.settings.maxFpmSamples)));
    w.add(fpm.prefillTokens, fpm.decodeKvTokens, fpm.wallMs);
    if (fpm.prefillTokens > 0) {
      this.intervalPrefill.set(worker, (this.intervalPrefill.get(worker) ?? 0) + fpm.prefillTokens);
      this.intervalPrefillMs.set(worker, (this.intervalPrefillMs.get(worker) ?? 0) + fpm.wallMs);
    }
    this.intervalPasses.set(worker, (this.intervalPasses.get(worker) ?? 0) + 1);
  }

  decide(t: ClusterTelemetry): Partial<Record<EngineRole, number>> | null {
    this.ticks++;
    const s = this.settings;
    this.observeWindow(t);
    const live = t.roles.map((r) => r.ready + r.starting);
    const want = live.slice();
    const acted = t.roles.map(() => false);

    if (s.throughputScaling && t.nowMs >= this.nextThroughputMs - EPS_MS) {
      while (this.nextThroughputMs <= t.nowMs + EPS_MS) this.nextThroughputMs += s.throughputIntervalMs;
      this.throughputTicks++;
      const target = this.throughputTarget(t);
      for (let i = 0; i < want.length; i++) {
        // Alone it sets the count; with load scaling it is the floor load scaling moves above.
        const next = s.loadScaling ? Math.max(want[i], target[i]) : target[i];
        if (s.loadScaling) this.floor[i] = target[i];
        if (next !== want[i]) acted[i] = true;
        want[i] = next;
      }
    }

    if (s.loadScaling && t.nowMs >= this.nextLoadMs - EPS_MS) {
      while (this.nextLoadMs <= t.nowMs + EPS_MS) this.nextLoadMs += s.loadIntervalMs;
      this.loadTicks++;
      this.pruneWindows(t);
      for (let i = 0; i < t.roles.length; i++) {
        if (acted[i]) continue;
        const r = t.roles[i];
        // One action at a time: wait until the last new worker serves / the drained one is gone.
        if (r.starting > 0 || r.draining > 0) {
          this.pendingHolds++;
          continue;
        }
        const step = this.loadStep(i, r, t.nowMs - this.lastLoadMs);
        if (step > 0) {
          if (this.gpusWith(want, t.roles) + r.gpusPerWorker <= s.maxGpuBudget) want[i]++;
          else this.budgetHolds++;
        } else if (step < 0) {
          const lower = Math.max(s.minEndpoint, this.floor[i]);
          if (want[i] - 1 >= lower && this.gpusWith(want, t.roles) - r.gpusPerWorker >= s.minGpuBudget) want[i]--;
        }
      }
      this.intervalPrefill.clear();
      this.intervalPasses.clear();
      this.intervalPrefillMs.clear();
      this.lastLoadMs = t.nowMs;
    }

    let changed = false;
    const out: Partial<Record<EngineRole, number>> = {};
    for (let i = 0; i < want.length; i++) {
      if (want[i] > this.maxReplicas[i]) this.maxReplicas[i] = want[i];
      if (want[i] === live[i]) continue;
      if (want[i] > live[i]) this.ups++;
      else this.downs++;
      out[t.roles[i].role] = want[i];
      changed = true;
    }
    return changed ? out : null;
  }

  stats(): Record<string, number> {
    const m: Record<string, number> = {
      planner_total_ticks: this.ticks,
      planner_throughput_ticks: this.throughputTicks,
      planner_load_ticks: this.loadTicks,
      planner_scale_ups: this.ups,
      planner_scale_downs: this.downs,
      planner_pending_holds: this.pendingHolds,
      planner_budget_holds: this.budgetHolds,
    };
    this.pools.forEach((p, i) => (m[`max_replicas_${p.role}`] = this.maxReplicas[i]));
    return m;
  }

  // --- telemetry bookkeeping ------------------------------------------------------------------------

  private observeWindow(t: ClusterTelemetry): void {
    if (t.arrivals > 0) {
      this.lastIsl = t.meanIsl;
      this.lastOsl = t.meanOsl;
    }
    this.tw.arrivals += t.arrivals;
    this.tw.islSum += t.meanIsl * t.arrivals;
    this.tw.oslSum += t.meanOsl * t.arrivals;
    // Prefix hits happen on the first role (prefill or agg): its cumulative counters, differenced.
    const first = t.roles[0];
    const dq = first.queryTokens - this.seenQuery;
    const dh = first.hitTokens - this.seenHit;
    this.seenQuery = first.queryTokens;
    this.seenHit = first.hitTokens;
    this.tw.query += dq;
    this.tw.hit += dh;
    if (dq > 0) this.hitRate = dh / dq;
  }

  private gpusWith(want: readonly number[], roles: readonly RoleTelemetry[]): number {
    let g = 0;
    for (let i = 0; i < want.length; i++) g += (want[i] + roles[i].draining) * roles[i].gpusPerWorker;
    return g;
  }

  private pruneWindows(t: ClusterTelemetry): void {
    const serving = new Set<number>();
    for (const r of t.roles) for (const e of r.engines) serving.add(e.worker);
    for (const id of [...this.windows.keys()]) if (!serving.has(id)) this.windows.delete(id);
  }

  // --- throughput scaling -----------------------------------------------------------------------------

  private throughputTarget(t: ClusterTelemetry): number[] {
    const s = this.settings;
    const f = this.forecast!;
    const w = this.tw;
    const n = w.arrivals;
    const isl = n > 0 ? w.islSum / n : this.lastIsl;
    const osl = n > 0 ? w.oslSum / n : this.lastOsl;
    f.num.observe(n);
    f.isl.observe(isl);
    f.osl.observe(osl);
    // Predicted prefix-hit rate: the last throughput window's (constant-last).
    const hit = w.query > 0 ? w.hit / w.query : this.hitRate;
    this.tw = { arrivals: 0, islSum: 0, oslSum: 0, query: 0, hit: 0 };
    const predN = f.num.predict();
    const predIsl = Math.max(1, f.isl.predict() || isl);
    const predOsl = Math.max(1, f.osl.predict() || osl);
    const demand = predN / (s.throughputIntervalMs / 1000);
    const rps = this.pools.map((p) =>
      engineRps(p.role, { perf: p.perf, engine: p.engine, isl: predIsl, osl: predOsl, prefixHitRate: p.role === 'decode' ? 0 : hit, ttftMs: s.ttftMs, itlMs: s.itlMs }),
    );
    const raw = this.pools.map((p, i) => ({ replicas: Math.max(s.minEndpoint, demand > 0 ? Math.ceil(demand / rps[i]) : 0), gpusPerWorker: t.roles[i].gpusPerWorker }));
    const replicas = clampToGpuBudget(raw, s.minEndpoint, s.minGpuBudget, s.maxGpuBudget);
    this.throughputDecisions.push({ nowMs: t.nowMs, demandRps: demand, isl: predIsl, osl: predOsl, prefixHitRate: hit, engineRps: rps, replicas });
    return replicas;
  }

  // --- load scaling -----------------------------------------------------------------------------------

  private loadStep(i: number, r: RoleTelemetry, intervalMs: number): -1 | 0 | 1 {
    if (r.engines.length === 0) return 0;
    const s = this.settings;
    const pool = this.pools[i];
    const kind: FpmKind = pool.role;
    const minObs = s.minObservations;
    let pooled: PassTimeModel | null | undefined;
    const pooledModel = () => {
      if (pooled !== undefined) return pooled;
      const ws = r.engines.map((e) => this.windows.get(e.worker)).filter((w): w is FpmWindow => w !== undefined);
      const n = ws.reduce((a, w) => a + w.size, 0);
      return (pooled = n >= minObs ? fitPassTime(ws, kind, s.fpmBucketSize) : null);
    };
    const n = r.engines.length;
    const current: EngineEstimate[] = [];
    const afterRemoval: EngineEstimate[] = [];
    for (const e of r.engines) {
      const w = this.windows.get(e.worker);
      // Too few passes of its own (a worker that just started): the role's pooled passes stand in.
      const m = w && w.size >= minObs ? fitPassTime([w], kind, s.fpmBucketSize) : pooledModel();
      if (!m) return 0;
      current.push(this.estimate(pool, i, e, m, 1));
      if (n > 1) {
        const est = this.estimate(pool, i, e, m, n / (n - 1));
        // The passes carrying prompt work must fit the survivors' time: a saturated prefill queue has no
        // finite TTFT (the snapshot of a lightly queued engine cannot tell how close it runs to that).
        const util = intervalMs > 0 ? (this.intervalPrefillMs.get(e.worker) ?? 0) / intervalMs : 0;
        if (pool.role !== 'decode' && (util * n) / (n - 1) >= s.downSensitivity / 100) est.ttftMs = Infinity;
        afterRemoval.push(est);
      }
    }
    return loadScalingStep(pool.role, current, afterRemoval, { ttftMs: s.ttftMs, itlMs: s.itlMs, downSensitivity: s.downSensitivity });
  }

  /** TTFT / ITL estimates of one engine at `scale` × its current load. */
  private estimate(pool: PlannerPool, i: number, e: EngineTelemetry, m: PassTimeModel, scale: number): EngineEstimate {
    const budget = pool.engine.maxNumBatchedTokens;
    const fresh = Math.max(1, Math.round(this.lastIsl * (1 - this.hitRate)));
    const tps = this.tokensPerStep[i];
    const pending = e.pendingPrefillTokens * scale;
    switch (pool.role) {
      case 'prefill':
        return { ttftMs: estimateTtftMs(m, pending, fresh, budget), itlMs: NaN };
      case 'decode':
        // Requests waiting for a decode slot join the batch as soon as they can.
        return { ttftMs: NaN, itlMs: estimateItlMs(m, (e.decodeKvTokens + e.waitingTokens) * scale, 0, tps) };
      case 'agg': {
        const kv = e.decodeKvTokens * scale;
        // Decode steps share passes with prompt chunks: a backlog beyond one pass fills every pass
        // until it clears; otherwise this interval's mean prefill per pass is what a decode step carries.
        const passes = this.intervalPasses.get(e.worker) ?? 0;
        const recent = passes > 0 ? (this.intervalPrefill.get(e.worker) ?? 0) / passes : 0;
        const riding = Number.isFinite(budget) && pending >= budget ? budget : recent * scale;
        return { ttftMs: estimateTtftMs(m, pending, fresh, budget, kv), itlMs: estimateItlMs(m, kv, riding, tps) };
      }
    }
  }
}
