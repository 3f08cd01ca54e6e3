// The replay loop: arrivals (open or closed loop, sessions with think time), routing, worker passes,
// P/D KV transfers and planner scaling, driven by one event queue. Deterministic: no clocks, no
// unordered iteration, one seeded PRNG for the router.
import { BlockInterner } from './block-interner.js';
import { ReplayInfeasible } from './infeasible.js';
import { Prng } from './prng.js';
import type { PoolDeployment, ResolvedDeployment } from './deployment.js';
import { EventKind, EventQueue } from './event-queue.js';
import { Frontend } from './frontend.js';
import { ClientLatency } from './workload/client.js';
import type { RankListener } from './engine/rank-scheduler.js';
import { SimRequest } from './engine/sim-request.js';
import type { TokenSink } from './engine/token-sink.js';
import { Worker } from './engine/worker.js';
import { MetricsRecorder } from './metrics-recorder.js';
import { Router, type RouteTarget } from './router/router.js';
import type { ClusterTelemetry, EngineTelemetry, RoleTelemetry, ScalingController } from './scaling.js';
import type { WorkloadPlan } from './workload/request.js';

export interface ReplayOutcome {
  recorder: MetricsRecorder;
  issued: number;
  events: number;
  /** GPU·ms of every replica while it existed within [first arrival, last completion]. */
  gpuMs: number;
  queryTokens: number;
  hitTokens: number;
  hostHitTokens: number;
  preemptions: number;
  passes: number;
  transfers: number;
  transferMsSum: number;
  scalingActions: number;
  peakWorkers: number;
}

class Pool {
  readonly workers: Worker[] = [];
  /** Every slot ever created (index = slot id) and the ones currently taking new requests. */
  readonly slots: RouteTarget[] = [];
  active: RouteTarget[] = [];
  readonly router: Router;
  private readonly indexed: boolean;

  constructor(
    readonly index: number,
    readonly dep: PoolDeployment,
    routerCfg: ResolvedDeployment['router'],
    prng: Prng,
    scalable: boolean,
  ) {
    const overlapAware = dep.role !== 'decode';
    this.router = new Router(routerCfg, dep.engine.blockSize, overlapAware, prng);
    // A pool that can only ever have one target never consults the index: skip maintaining it.
    const multi = scalable || dep.replicas * dep.engine.attentionDp > 1;
    this.indexed = overlapAware && routerCfg.mode === 'kv_router' && multi;
  }

  listenerFor(slot: number): RankListener | null {
    if (!this.indexed) return null;
    const { device, host } = this.router;
    return {
      onCached: (h) => device.add(h, slot),
      onEvicted: (h) => device.remove(h, slot),
      onHostChange: (h, present) => (present ? host.add(h, slot) : host.remove(h, slot)),
    };
  }

  readonly slotOf = new Map<object, number>();

  refreshActive(): void {
    this.active = [];
    for (const w of this.workers) {
      if (w.state !== 'ready') continue;
      for (const r of w.ranks) this.active.push(this.slots[this.slotOf.get(r)!]);
    }
  }
}

export class Cluster implements TokenSink {
  private readonly q = new EventQueue();
  private readonly interner = new BlockInterner();
  private readonly rec = new MetricsRecorder();
  private readonly pools: Pool[];
  private readonly workers: Worker[] = [];
  private readonly poolOfWorker: number[] = [];
  /** Requests in flight by id (finished ones are released: a long replay keeps only their records). */
  private readonly requests: (SimRequest | undefined)[] = [];
  private readonly nextTurn: Int32Array;
  private readonly openOrder: number[];
  private nextOpen = 0;
  private nextClosed = 0;
  private issued = 0;
  private ended = 0;
  private nowMs = 0;
  private transfers = 0;
  private transferMsSum = 0;
  private scalingActions = 0;
  private peakWorkers = 0;
  private readonly controller: ScalingController | null;
  private readonly client: ClientLatency | null;
  private readonly frontend: Frontend | null;
  // Window counters for the controller's telemetry.
  private win = { arrivals: 0, islSum: 0, oslSum: 0, completions: 0, ttftSum: 0, itlSum: 0, itlN: 0, lastMs: 0 };

  constructor(
    private readonly dep: ResolvedDeployment,
    private readonly plan: WorkloadPlan,
  ) {
    const prng = new Prng(dep.seed ^ 0x5eed);
    this.client = plan.concurrency !== null && plan.client ? new ClientLatency(plan.client) : null;
    this.frontend = dep.frontend && (dep.frontend.fixedMs > 0 || dep.frontend.tokenizeMsPerToken > 0) ? new Frontend(dep.frontend) : null;
    const c = dep.scaling;
    this.controller = c && Number.isFinite(c.intervalMs) && c.intervalMs > 0 ? c : null;
    this.pools = dep.pools.map((p, i) => new Pool(i, p, dep.router, prng, this.controller !== null));
    for (const pool of this.pools) for (let i = 0; i < pool.dep.replicas; i++) this.addWorker(pool, 0, true);
    for (const pool of this.pools) pool.refreshActive();
    this.nextTurn = new Int32Array(plan.sessions.length);
    this.openOrder = [];
    if (plan.concurrency === null) {
      this.openOrder = plan.sessions.map((_, i) => i);
      this.openOrder.sort((a, b) => plan.sessions[a].startMs! - plan.sessions[b].startMs! || a - b);
    }
  }

  run(): ReplayOutcome {
    const { plan, q } = this;
    if (plan.concurrency === null) {
      if (this.openOrder.length > 0) this.pushOpenArrival();
    } else {
      // The client opens its c slots one after another: each waits one re-issue latency after the last.
      const c = Math.min(plan.concurrency, plan.sessions.length);
      let t = 0;
      for (let i = 0; i < c; i++) t = this.startClosedSession(t);
    }
    if (this.controller) q.push(this.controller.intervalMs, EventKind.Scaling, 0);
    while (q.pop()) {
      const at = q.topAt;
      this.nowMs = at;
      const data = q.topData;
      switch (q.topKind) {
        case EventKind.PassEnd: {
          const w = this.workers[data];
          w.endPass(at);
          // Nothing else happens at this instant: start the next pass now instead of queueing a kick.
          if (q.peekAt() > at && !w.kickQueued) this.onKick(w, false);
          else this.kick(w);
          break;
        }
        case EventKind.Kick:
          this.onKick(this.workers[data >> 1], (data & 1) === 1);
          break;
        case EventKind.Arrival:
          this.onArrival(data);
          break;
        case EventKind.Admit:
          this.route(this.pools[0], this.requests[data]!);
          break;
        case EventKind.TransferDone:
          this.onTransferDone(this.requests[data]!);
          break;
        case EventKind.WorkerReady: {
          const w = this.workers[data];
          if (w.state === 'starting') {
            w.state = 'ready';
            this.pools[this.poolOfWorker[data]].refreshActive();
            this.kick(w);
          }
          break;
        }
        case EventKind.Scaling:
          this.onScaling();
          break;
        default:
          break;
      }
    }
    // Every issued request must have finished or been rejected; anything else is a stalled simulation.
    if (this.ended < this.issued)
      throw new ReplayInfeasible('replay_runtime', `${this.issued - this.ended} of ${this.issued} requests never completed (simulator stalled)`);
    return this.outcome();
  }

  // --- arrivals -----------------------------------------------------------------------------------

  private pushOpenArrival(): void {
    const s = this.openOrder[this.nextOpen++];
    this.q.push(this.plan.sessions[s].startMs!, EventKind.Arrival, s);
  }

  /** A closed-loop slot sends its next session's first request, after the client's re-issue latency. */
  private startClosedSession(atMs: number): number {
    if (this.nextClosed >= this.plan.sessions.length) return atMs;
    const at = this.client ? atMs + this.client.draw() : atMs;
    this.q.push(at, EventKind.Arrival, this.nextClosed++);
    return at;
  }

  private onArrival(s: number): void {
    const session = this.plan.sessions[s];
    const turn = this.nextTurn[s];
    if (turn === 0 && this.plan.concurrency === null && this.nextOpen < this.openOrder.length) this.pushOpenArrival();
    if (this.issued >= this.plan.numRequests) return;
    this.nextTurn[s] = turn + 1;
    const spec = session.turns[turn];
    const req = new SimRequest(this.issued++, s, turn, spec.isl, spec.osl, spec.prompt, this.nowMs, this.interner);
    this.requests.push(req);
    this.rec.arrival(this.nowMs);
    this.win.arrivals++;
    this.win.islSum += spec.isl;
    this.win.oslSum += spec.osl;
    req.prefillTarget = req.isl;
    // TTFT counts from the send: the frontend's tokenisation queue and fixed latency are inside it.
    if (this.frontend) {
      const at = this.frontend.admitAt(this.nowMs, spec.isl);
      if (at > this.nowMs) {
        this.q.push(at, EventKind.Admit, req.id);
        return;
      }
    }
    this.route(this.pools[0], req);
  }

  private route(pool: Pool, req: SimRequest): void {
    const target = pool.router.pick(req, pool.active, pool.slots.length);
    this.book(pool, target, req);
    target.rank.enqueue(req);
    this.kick(this.workers[this.workerOfSlot(pool, target.slot)]);
  }

  private book(pool: Pool, target: RouteTarget, req: SimRequest): void {
    req.pool = pool.index;
    req.slot = target.slot;
    req.bookedBlocks = Math.ceil(req.isl / pool.dep.engine.blockSize);
    target.rank.routedBlocks += req.bookedBlocks;
  }

  private unbook(req: SimRequest): void {
    this.pools[req.pool].slots[req.slot].rank.routedBlocks -= req.bookedBlocks;
    req.bookedBlocks = 0;
  }

  private readonly slotWorker: number[][] = [];

  private workerOfSlot(pool: Pool, slot: number): number {
    return this.slotWorker[pool.index][slot];
  }

  // --- workers ------------------------------------------------------------------------------------

  private addWorker(pool: Pool, nowMs: number, ready: boolean): Worker {
    const id = this.workers.length;
    const dp = pool.dep.engine.attentionDp;
    const listeners: (RankListener | null)[] = [];
    const first = pool.slots.length;
    for (let r = 0; r < dp; r++) listeners.push(pool.listenerFor(first + r));
    const w = new Worker(id, pool.dep.engine, pool.dep.perf, pool.dep.gpusPerWorker, this, listeners, nowMs, ready);
    this.workers.push(w);
    this.poolOfWorker.push(pool.index);
    pool.workers.push(w);
    while (this.slotWorker.length <= pool.index) this.slotWorker.push([]);
    for (const rank of w.ranks) {
      const slot = pool.slots.length;
      pool.slots.push({ slot, rank });
      pool.slotOf.set(rank, slot);
      this.slotWorker[pool.index].push(id);
    }
    const live = this.workers.filter((x) => x.state !== 'stopped').length;
    if (live > this.peakWorkers) this.peakWorkers = live;
    return w;
  }

  private kick(w: Worker): void {
    if (w.kickQueued || !w.idle()) return;
    w.kickQueued = true;
    this.q.push(this.nowMs, EventKind.Kick, w.index * 2 + 1);
  }

  private onKick(w: Worker, immediate: boolean): void {
    if (immediate) w.kickQueued = false;
    if (!w.idle() || w.state === 'starting' || w.state === 'stopped') return;
    const ms = w.startPass(this.nowMs);
    if (ms >= 0) {
      this.q.push(this.nowMs + ms, EventKind.PassEnd, w.index);
      if (this.controller?.observePass) this.controller.observePass(this.pools[this.poolOfWorker[w.index]].dep.role, w.index, w.lastPass);
      return;
    }
    const wake = w.nextRestoreMs();
    if (Number.isFinite(wake)) {
      this.q.push(Math.max(wake, this.nowMs), EventKind.Kick, w.index * 2);
      return;
    }
    if (w.state === 'draining' && !w.hasWork()) this.stopWorker(w);
  }

  private stopWorker(w: Worker): void {
    w.state = 'stopped';
    w.stoppedMs = this.nowMs;
  }

  // --- TokenSink ----------------------------------------------------------------------------------

  tokens(req: SimRequest, n: number, nowMs: number): void {
    if (req.firstTokenHeld) {
      req.firstTokenHeld = false;
      n += 1;
    }
    this.rec.tokens(req, n, nowMs);
  }

  finished(req: SimRequest, nowMs: number): void {
    this.unbook(req);
    this.rec.finished(req, nowMs);
    this.win.completions++;
    this.win.ttftSum += req.firstTokenMs - req.arrivalMs;
    if (req.emitted > 1) {
      this.win.itlSum += (req.lastTokenMs - req.firstTokenMs) / (req.emitted - 1);
      this.win.itlN++;
    }
    this.requestEnded(req);
  }

  rejected(req: SimRequest, _nowMs: number): void {
    this.unbook(req);
    this.rec.rejected++;
    this.requestEnded(req);
  }

  prefillDone(req: SimRequest, nowMs: number): void {
    this.unbook(req);
    const decode = this.pools[1];
    const target = decode.router.pick(req, decode.active, decode.slots.length);
    this.book(decode, target, req);
    const transfer = this.dep.transfer;
    let ms = 0;
    if (transfer && transfer.bandwidthGBps !== null && transfer.bandwidthGBps > 0) {
      // destination_missing: only the prompt blocks the decode rank does not already cache move.
      const bs = decode.dep.engine.blockSize;
      const cached = target.rank.cache.matchPrefix(req.hashes(bs), Math.floor(req.isl / bs)) * bs;
      ms = ((req.isl - cached) * transfer.kvBytesPerToken) / (transfer.bandwidthGBps * 1e6);
    }
    this.transfers++;
    this.transferMsSum += ms;
    this.q.push(nowMs + ms, EventKind.TransferDone, req.id);
  }

  private onTransferDone(req: SimRequest): void {
    const now = this.nowMs;
    // The prefill worker's first token travels with the KV. The decode worker streams it with its first
    // step over the request (Dynamo's disaggregated flow: the client's stream is the decode worker's),
    // so TTFT holds the prefill queue and pass, the transfer, the wait for the decode worker's running
    // pass to end and that first decode pass; the second token comes with it.
    req.emitted = 1;
    req.known = req.isl + 1;
    if (req.emitted >= req.osl) {
      this.rec.tokens(req, 1, now);
      this.finished(req, now);
      return;
    }
    req.firstTokenHeld = true;
    req.computed = req.isl;
    req.prefillTarget = req.isl;
    req.hashedUpTo = 0;
    req.restoredBlocks = 0;
    const pool = this.pools[req.pool];
    const target = pool.slots[req.slot];
    target.rank.enqueue(req);
    this.kick(this.workers[this.workerOfSlot(pool, req.slot)]);
  }

  private requestEnded(req: SimRequest): void {
    this.ended++;
    this.requests[req.id] = undefined;
    const session = this.plan.sessions[req.session];
    const next = req.turn + 1;
    if (next < session.turns.length && this.issued < this.plan.numRequests) {
      this.q.push(this.nowMs + session.turns[next].delayMs, EventKind.Arrival, req.session);
      return;
    }
    if (this.plan.concurrency !== null && this.issued < this.plan.numRequests) this.startClosedSession(this.nowMs);
  }

  // --- planner ------------------------------------------------------------------------------------

  private onScaling(): void {
    const ctl = this.controller!;
    const now = this.nowMs;
    const w = this.win;
    const t: ClusterTelemetry = {
      nowMs: now,
      windowMs: now - w.lastMs,
      arrivals: w.arrivals,
      completions: w.completions,
      meanIsl: w.arrivals > 0 ? w.islSum / w.arrivals : 0,
      meanOsl: w.arrivals > 0 ? w.oslSum / w.arrivals : 0,
      meanTtftMs: w.completions > 0 ? w.ttftSum / w.completions : NaN,
      meanItlMs: w.itlN > 0 ? w.itlSum / w.itlN : NaN,
      roles: this.pools.map((p) => this.roleTelemetry(p)),
    };
    this.win = { arrivals: 0, islSum: 0, oslSum: 0, completions: 0, ttftSum: 0, itlSum: 0, itlN: 0, lastMs: now };
    const want = ctl.decide(t);
    if (want) for (const pool of this.pools) {
      const n = want[pool.dep.role];
      if (n !== undefined && n !== null) this.scaleTo(pool, Math.max(1, Math.floor(n)));
    }
    const busy = this.ended < this.issued || this.issued < this.plan.numRequests;
    if (busy && this.q.size > 0) this.q.push(now + ctl.intervalMs, EventKind.Scaling, 0);
  }

  private roleTelemetry(p: Pool): RoleTelemetry {
    let ready = 0;
    let starting = 0;
    let draining = 0;
    let active = 0;
    let waiting = 0;
    let pending = 0;
    let used = 0;
    let cap = 0;
    let query = 0;
    let hit = 0;
    const engines: EngineTelemetry[] = [];
    for (const w of p.workers) {
      for (const r of w.ranks) {
        query += r.queryTokens;
        hit += r.hitTokens;
      }
      if (w.state === 'ready') ready++;
      else if (w.state === 'starting') starting++;
      else if (w.state === 'draining') draining++;
      if (w.state === 'stopped' || w.state === 'starting') continue;
      for (const r of w.ranks) {
        active += r.activeRequests;
        waiting += r.waiting.size;
        pending += r.pendingPrefillTokens;
        used += r.cache.activeBlocks();
        cap += r.cache.capacityBlocks;
      }
      if (w.state === 'ready') engines.push(engineTelemetry(w));
    }
    return {
      role: p.dep.role,
      ready,
      starting,
      draining,
      gpusPerWorker: p.dep.gpusPerWorker,
      activeRequests: active,
      waitingRequests: waiting,
      pendingPrefillTokens: pending,
      kvUtilization: cap > 0 ? used / cap : 0,
      engines,
      queryTokens: query,
      hitTokens: hit,
    };
  }

  private scaleTo(pool: Pool, n: number): void {
    const live = pool.workers.filter((w) => w.state === 'ready' || w.state === 'starting');
    if (n > live.length) {
      for (let i = live.length; i < n; i++) {
        const w = this.addWorker(pool, this.nowMs, false);
        this.q.push(this.nowMs + pool.dep.startupTimeMs, EventKind.WorkerReady, w.index);
        this.scalingActions++;
      }
    } else if (n < live.length) {
      // Newest first: cancel workers still starting, then drain ready ones.
      const order = live.slice().sort((a, b) => (a.state === b.state ? b.index - a.index : a.state === 'starting' ? -1 : 1));
      for (let i = 0; i < live.length - n; i++) {
        const w = order[i];
        this.scalingActions++;
        if (w.state === 'starting') this.stopWorker(w);
        else {
          w.state = 'draining';
          if (w.idle() && !w.hasWork()) this.stopWorker(w);
        }
      }
    }
    pool.refreshActive();
  }

  // --- results ------------------------------------------------------------------------------------

  private outcome(): ReplayOutcome {
    const start = this.rec.firstArrivalMs;
    const end = this.rec.lastCompletionMs;
    let gpuMs = 0;
    let query = 0;
    let hit = 0;
    let hostHit = 0;
    let preempt = 0;
    let passes = 0;
    if (Number.isFinite(start) && Number.isFinite(end)) {
      for (const w of this.workers) {
        const from = Math.max(w.createdMs, start);
        const to = Math.min(w.stoppedMs, end);
        if (to > from) gpuMs += (to - from) * w.gpus;
      }
    }
    for (const w of this.workers) {
      passes += w.passes;
      for (const r of w.ranks) {
        query += r.queryTokens;
        hit += r.hitTokens;
        hostHit += r.hostHitTokens;
        preempt += r.preemptions;
      }
    }
    return {
      recorder: this.rec,
      issued: this.issued,
      events: this.q.popped,
      gpuMs,
      queryTokens: query,
      hitTokens: hit,
      hostHitTokens: hostHit,
      preemptions: preempt,
      passes,
      transfers: this.transfers,
      transferMsSum: this.transferMsSum,
      scalingActions: this.scalingActions,
      peakWorkers: this.peakWorkers,
    };
  }
}

/** One engine's load, its most loaded rank per field. */
function engineTelemetry(w: Worker): EngineTelemetry {
  const e: EngineTelemetry = { worker: w.index, pendingPrefillTokens: 0, decodeKvTokens: 0, decodeRequests: 0, waitingRequests: 0, waitingTokens: 0 };
  for (const r of w.ranks) {
    let kv = 0;
    let n = 0;
    for (const req of r.running) {
      if (req.computed < req.prefillTarget) continue;
      kv += req.computed;
      n++;
    }
    let wt = 0;
    for (let i = 0; i < r.waiting.size; i++) wt += r.waiting.at(i).known;
    if (r.pendingPrefillTokens > e.pendingPrefillTokens) e.pendingPrefillTokens = r.pendingPrefillTokens;
    if (kv > e.decodeKvTokens) e.decodeKvTokens = kv;
    if (n > e.decodeRequests) e.decodeRequests = n;
    if (r.waiting.size > e.waitingRequests) e.waitingRequests = r.waiting.size;
    if (wt > e.waitingTokens) e.waitingTokens = wt;
  }
  return e;
}

export function simulate(dep: ResolvedDeployment, plan: WorkloadPlan): ReplayOutcome {
  return new Cluster(dep, plan).run();
}
