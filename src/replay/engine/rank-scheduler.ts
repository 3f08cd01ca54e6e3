// One attention rank's scheduler: forms a batch per pass under the token budget and max_num_seqs,
// allocates KV blocks, reuses cached prefixes, preempts with recompute, and applies the pass's results.
//
// vLLM (V1): running requests first, in order, each taking min(remaining known tokens, budget); on a
//   failed allocation the last running request is preempted (LIFO) and the allocation retried; then
//   waiting requests are admitted FCFS while running < max_num_seqs and nothing was preempted this pass.
//   Progress: the oldest running request is scheduled first and only later ones are preempted for it.
// SGLang: the same pool but prefill and decode never share a pass (mixed chunk is off by default) — a
//   pass that can prefill (continue a chunk or admit) does only that; otherwise it decodes every running
//   request. Admission is conservative (PrefillAdder): a request is admitted only if the pool (free +
//   evictable) minus the running requests' expected remaining outputs — min(osl − emitted, 4096) ×
//   new_token_ratio — still holds its uncached prompt plus its whole min(osl − emitted, 4096) outputs;
//   its whole prompt is allocated at admission, so later chunks never fail. A decode pass whose next
//   tokens do not fit retracts the requests with the fewest outputs (most work left; ties: the longest
//   prompt) until the rest can decode RETRACT_DECODE_STEPS more tokens, and raises new_token_ratio to
//   (Σ emitted + 20 × running) / Σ osl of the rest, so the retracted are not re-admitted at once; without
//   retraction the ratio decays linearly from 0.7 to 0.098 over 600 decode passes and resets when idle.
//   (Without this, an over-committed rank livelocked: a preempted request's recompute needed two chunks,
//   the second never fitted, and the rank re-prefilled the first forever.) Reuse is block-granular like
//   vLLM's here, and no 0.88 memory fraction is applied (the capacity given is used as is).
// All backends: with a fitted admission lag L (EngineConfig.admissionLagPasses), a request reaching a busy
//   rank is admitted no earlier than L of its passes later (FIFO; an idle rank admits at once).
// TRT-LLM: vLLM's loop with GUARANTEED_NO_EVICT admission — a request is admitted only if blocks for its
//   whole prompt + output fit now; they are reserved up front, so running requests are never preempted.
import type { PassWork } from '../../hardware/pass.js';
import { Deque } from './deque.js';
import type { EngineConfig } from './engine-config.js';
import { mtpTokensPerStep } from './engine-config.js';
import { HostTier } from './host-tier.js';
import { KvCache, type KvCacheListener } from './kv-cache.js';
import type { SimRequest } from './sim-request.js';
import type { TokenSink } from './token-sink.js';

/** `scheduled` marker of a request that leaves the rank at the end of this pass. */
const LEFT = -1;

// SGLang scheduler constants (schedule_conservativeness 1.0, the default).
/** Initial and reset new_token_ratio (SGLANG_INIT_NEW_TOKEN_RATIO 0.7 × conservativeness). */
export const SGLANG_INIT_NEW_TOKEN_RATIO = 0.7;
/** Floor of new_token_ratio (init × SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR 0.14). */
export const SGLANG_MIN_NEW_TOKEN_RATIO = 0.7 * 0.14;
/** Decode passes over which the ratio decays from init to its floor (SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS). */
const SGLANG_DECAY_STEPS = 600;
/** Output tokens a request's reservation is clipped to (CLIP_MAX_NEW_TOKENS). */
const SGLANG_CLIP_MAX_NEW_TOKENS = 4096;
/** Decode steps the requests kept after a retraction must be able to run (retract_decode_steps). */
const SGLANG_RETRACT_DECODE_STEPS = 20;

export interface RankListener extends KvCacheListener {
  onHostChange(hash: number, present: boolean): void;
}

export class RankScheduler {
  readonly cache: KvCache;
  readonly host: HostTier | null;
  readonly waiting = new Deque<SimRequest>(64);
  running: SimRequest[] = [];
  /** Requests whose G2 → G1 restore is in flight (they hold their blocks already). */
  private restoring: SimRequest[] = [];
  /** Requests scheduled in the pass in flight, in schedule order. */
  private sched: SimRequest[] = [];
  private schedN = 0;
  readonly work: PassWork = { prefillSeqs: 0, prefillTokens: 0, prefillAttnPairs: 0, decodeSeqs: 0, decodeContextSum: 0 };

  /** Σ prompt tokens still to compute on this rank (router prefill load). */
  pendingPrefillTokens = 0;
  /** Blocks of the requests routed here and not yet gone (router decode load, Dynamo's active blocks). */
  routedBlocks = 0;
  /** Requests assigned here and not yet finished/handed off (router active load). */
  activeRequests = 0;
  // Statistics.
  queryTokens = 0;
  hitTokens = 0;
  hostHitTokens = 0;
  preemptions = 0;
  /** SGLang: the running requests' expected share of their remaining outputs (see module comment). */
  newTokenRatio = SGLANG_INIT_NEW_TOKEN_RATIO;

  private readonly leaving: SimRequest[] = [];
  /** Passes this rank has run (the clock of the admission lag). */
  private passes = 0;
  private readonly lagPasses: number;
  private readonly bs: number;
  private readonly tokensPerStep: number;
  private readonly lookahead: number;

  constructor(
    readonly cfg: EngineConfig,
    private readonly sink: TokenSink,
    listener: RankListener | null,
  ) {
    this.bs = cfg.blockSize;
    this.cache = new KvCache(Math.floor(cfg.kvCapacityTokensPerRank / cfg.blockSize), cfg.enablePrefixCaching, listener);
    this.host = cfg.hostTier && cfg.hostTier.numBlocks > 0 ? new HostTier(cfg.hostTier, listener ? (h, p) => listener.onHostChange(h, p) : null) : null;
    this.tokensPerStep = mtpTokensPerStep(cfg.nextn);
    this.lookahead = cfg.nextn;
    this.lagPasses = cfg.admissionLagPasses ?? 0;
  }

  hasWork(): boolean {
    return this.running.length > 0 || this.waiting.size > 0;
  }

  /** Earliest pending restore completion, or +∞. */
  nextRestoreMs(): number {
    let t = Infinity;
    for (const r of this.restoring) if (r.readyAtMs < t) t = r.readyAtMs;
    return t;
  }

  hasRestoring(): boolean {
    return this.restoring.length > 0;
  }

  /** Queues a request that starts on this rank (fresh, or transferred with `computed` tokens of KV). */
  enqueue(req: SimRequest): void {
    this.pendingPrefillTokens += Math.max(0, req.prefillTarget - req.computed);
    this.activeRequests++;
    req.scheduled = 0;
    req.admitAtPass = this.passes + this.lagPasses;
    this.waiting.push(req);
  }

  /** Forms this pass's batch into `work`; returns the number of requests scheduled. */
  formBatch(nowMs: number): number {
    const w = this.work;
    w.prefillSeqs = 0;
    w.prefillTokens = 0;
    w.prefillAttnPairs = 0;
    w.decodeSeqs = 0;
    w.decodeContextSum = 0;
    this.schedN = 0;
    if (this.restoring.length > 0) this.releaseRestored(nowMs);
    const budget0 = this.cfg.maxNumBatchedTokens;
    if (this.cfg.backend === 'sglang') {
      // Chunks of running prompts hold their blocks already (allocated whole at admission): no preemption.
      const left = this.scheduleRunning(budget0, true, false);
      this.admit(nowMs, left >= 0 ? left : budget0);
      if (this.schedN === 0) this.decodeSglang();
    } else {
      const left = this.scheduleRunning(budget0, true, true);
      // No admissions in a pass that preempted — unless the pass would otherwise be empty (vLLM's next
      // step would admit at once; an empty pass must never strand the queue).
      if (left >= 0 || this.schedN === 0) this.admit(nowMs, left >= 0 ? left : budget0);
    }
    return this.schedN;
  }

  /**
   * Schedules running requests in order (prefill-phase and/or decode-phase ones). Returns the budget
   * left, or −1 if a preemption happened (no admissions then).
   */
  private scheduleRunning(budget: number, prefillPhase: boolean, decodePhase: boolean): number {
    const bs = this.bs;
    let preempted = false;
    const running = this.running;
    for (let i = 0; i < running.length && budget > 0; i++) {
      const req = running[i];
      const inPrefill = req.computed < req.prefillTarget;
      if (inPrefill ? !prefillPhase : !decodePhase) continue;
      const want = req.known - req.computed;
      const t = want < budget ? want : budget;
      const need = Math.ceil((req.computed + t + (inPrefill ? 0 : this.lookahead)) / bs) - req.blocksHeld();
      if (need > 0) {
        let ok = this.cache.allocate(need);
        while (!ok) {
          const victim = running[running.length - 1];
          this.preempt(victim);
          running.pop();
          preempted = true;
          if (victim === req) break;
          ok = this.cache.allocate(need);
        }
        if (!ok) break; // req itself was preempted: it was the last running request
        req.privateBlocks += need;
      }
      this.take(req, t, inPrefill);
      budget -= t;
    }
    return preempted ? -1 : budget;
  }

  /**
   * SGLang decode pass: every running request decodes one step. If their next tokens do not fit, retract
   * (module comment) first; the ratio decays by one step otherwise. Prefill-first means no running
   * request is mid-prompt here.
   */
  private decodeSglang(): void {
    const running = this.running;
    if (running.length === 0) return;
    if (this.decodeNeed(1) > this.cache.available()) {
      // Most remaining work first: fewest outputs, then longest prompt, then the latest issued.
      const order = [...running].sort((a, b) => a.emitted - b.emitted || b.isl - a.isl || b.id - a.id);
      const out = new Set<SimRequest>();
      for (const victim of order) {
        if (running.length - out.size <= 1 || this.decodeNeed(SGLANG_RETRACT_DECODE_STEPS, out) <= this.cache.available()) break;
        out.add(victim);
        this.freeForRecompute(victim);
      }
      if (out.size > 0) {
        this.running = running.filter((r) => !out.has(r));
        // Back to the queue head, oldest first, ahead of fresh arrivals.
        const back = [...out].sort((a, b) => b.id - a.id);
        for (const r of back) this.waiting.pushFront(r);
        let emitted = 0;
        let osl = 0;
        for (const r of this.running) {
          emitted += r.emitted;
          osl += r.osl;
        }
        this.newTokenRatio = Math.min(1, (emitted + SGLANG_RETRACT_DECODE_STEPS * this.running.length) / Math.max(1, osl));
      }
    } else {
      this.newTokenRatio = Math.max(SGLANG_MIN_NEW_TOKEN_RATIO, this.newTokenRatio - (SGLANG_INIT_NEW_TOKEN_RATIO - SGLANG_MIN_NEW_TOKEN_RATIO) / SGLANG_DECAY_STEPS);
    }
    // The survivors fit (or a lone request that outgrew the rank is preempted, then rejected on re-admission).
    this.scheduleRunning(this.cfg.maxNumBatchedTokens, false, true);
  }

  /**
   * SGLang's per-request output reservation: remaining outputs, clipped (CLIP_MAX_NEW_TOKENS); a prefill
   * worker only ever emits the first token before the hand-off, so it reserves that one.
   */
  private sglangMaxNew(r: SimRequest): number {
    const left = this.cfg.role === 'prefill' ? Math.min(1, r.osl - r.emitted) : r.osl - r.emitted;
    return left < SGLANG_CLIP_MAX_NEW_TOKENS ? left : SGLANG_CLIP_MAX_NEW_TOKENS;
  }

  /** Blocks the running requests (minus `skip`) need to decode `steps` more tokens each. */
  private decodeNeed(steps: number, skip: ReadonlySet<SimRequest> | null = null): number {
    let need = 0;
    for (const r of this.running) {
      if (skip?.has(r)) continue;
      const n = Math.ceil((r.computed + steps + this.lookahead) / this.bs) - r.blocksHeld();
      if (n > 0) need += n;
    }
    return need;
  }

  private take(req: SimRequest, t: number, inPrefill: boolean): void {
    const w = this.work;
    req.scheduled = t;
    if (inPrefill) {
      w.prefillSeqs++;
      w.prefillTokens += t;
      w.prefillAttnPairs += t * (req.computed + t / 2);
    } else {
      w.decodeSeqs++;
      w.decodeContextSum += req.computed;
    }
    this.sched[this.schedN++] = req;
  }

  private admit(nowMs: number, budget: number): void {
    const bs = this.bs;
    const cache = this.cache;
    const trt = this.cfg.backend === 'trtllm';
    const sg = this.cfg.backend === 'sglang';
    // SGLang: tokens promised to running requests' future outputs (and to those admitted in this pass).
    let reserved = 0;
    if (sg) for (const r of this.running) reserved += this.sglangMaxNew(r) * this.newTokenRatio;
    while (budget > 0 && this.running.length < this.cfg.maxNumSeqs && this.waiting.size > 0) {
      const req = this.waiting.peek()!;
      // Admission lag: a busy rank takes the request only after `lagPasses` of its passes (FIFO with one
      // lag, so no later request is due either); an idle rank runs no passes and takes it at once.
      if (req.admitAtPass > this.passes && this.running.length > 0) break;
      // Its tokens so far plus the next one can never fit this rank: reject instead of thrashing.
      if (Math.ceil((req.known + 1 + this.lookahead) / bs) > cache.capacityBlocks) {
        this.waiting.shift();
        this.reject(req, nowMs);
        continue;
      }
      const fresh = req.blocksHeld() === 0 && req.computed === 0;
      let hits = 0;
      const acquired = req.refs.length;
      if (fresh) {
        const hashes = req.hashes(bs);
        // At least one prompt token is always computed (vLLM caps hits below the full prompt).
        const maxHit = Math.floor((req.known - 1) / bs);
        hits = cache.matchPrefix(hashes, maxHit);
        const hostHits = this.host && req.restoredBlocks === 0 ? this.host.matchFrom(hashes, hits, maxHit) : 0;
        if (hostHits > 0) {
          if (!this.startRestore(req, hashes, hits, hostHits, nowMs)) break;
          continue;
        }
        if (hits > 0) cache.acquire(hashes, hits, req.refs);
        req.computed = hits * bs;
        req.hashedUpTo = hits;
      }
      const inPrefill = req.computed < req.prefillTarget;
      let t = req.known - req.computed;
      // SGLang: uncached prompt + whole clipped output must fit beside the running requests' reservation
      // (an empty rank always admits, so a lone request makes progress; retraction handles the rest).
      if (sg && this.running.length > 0 && t + this.sglangMaxNew(req) > cache.available() * bs - reserved) {
        this.undoAdmission(req, acquired, fresh);
        break;
      }
      if (t > budget) {
        if (!this.cfg.chunkedPrefill) {
          this.undoAdmission(req, acquired, fresh);
          break;
        }
        t = budget;
      }
      const total = trt ? req.isl + req.osl + this.lookahead : sg ? req.known : req.computed + t + (inPrefill ? 0 : this.lookahead);
      const need = Math.ceil(total / bs) - req.blocksHeld();
      if (!cache.allocate(need)) {
        this.undoAdmission(req, acquired, fresh);
        // Nothing running and nothing evictable left: this request can never fit here.
        if (this.running.length === 0 && this.restoring.length === 0 && Math.ceil(total / bs) > cache.capacityBlocks) {
          this.waiting.shift();
          this.reject(req, nowMs);
          continue;
        }
        break;
      }
      if (need > 0) req.privateBlocks += need;
      if (sg) reserved += this.sglangMaxNew(req);
      this.waiting.shift();
      if (fresh) {
        this.queryTokens += req.known;
        this.hitTokens += hits * bs;
        this.pendingPrefillTokens -= hits * bs;
      }
      this.running.push(req);
      this.take(req, t, inPrefill);
      budget -= t;
    }
  }

  private undoAdmission(req: SimRequest, acquired: number, fresh: boolean): void {
    if (!fresh) return;
    const mine = req.refs.splice(acquired);
    this.cache.free(mine, 0);
    req.computed = 0;
    req.hashedUpTo = 0;
  }

  /** Takes G1 room for the host-cached part of the prefix and starts its H2D copy. */
  private startRestore(req: SimRequest, hashes: Int32Array, hits: number, hostHits: number, nowMs: number): boolean {
    const cache = this.cache;
    if (hits > 0) cache.acquire(hashes, hits, req.refs);
    if (!cache.allocate(hostHits)) {
      cache.free(req.refs.splice(0), 0);
      return false;
    }
    req.privateBlocks += hostHits;
    for (let j = hits; j < hits + hostHits; j++) {
      if (cache.promote(hashes[j])) {
        req.privateBlocks--;
        req.refs.push(hashes[j]);
      }
    }
    req.computed = (hits + hostHits) * this.bs;
    req.hashedUpTo = hits + hostHits;
    req.restoredBlocks = hostHits;
    this.queryTokens += req.known;
    this.hitTokens += (hits + hostHits) * this.bs;
    this.hostHitTokens += hostHits * this.bs;
    this.pendingPrefillTokens -= (hits + hostHits) * this.bs;
    req.readyAtMs = this.host!.restore(hostHits, nowMs, this.host!.landedAt(hashes, hits, hostHits));
    this.waiting.shift();
    this.restoring.push(req);
    return true;
  }

  private releaseRestored(nowMs: number): void {
    // Back to the head of the queue in their original order.
    const ready = this.restoring.filter((r) => r.readyAtMs <= nowMs).sort((a, b) => a.id - b.id);
    if (ready.length === 0) return;
    this.restoring = this.restoring.filter((r) => r.readyAtMs > nowMs);
    for (let i = ready.length - 1; i >= 0; i--) this.waiting.pushFront(ready[i]);
  }

  private preempt(victim: SimRequest): void {
    this.freeForRecompute(victim);
    this.waiting.pushFront(victim);
  }

  /** Drops a running request's KV: it must recompute its prompt and outputs (vLLM preemption, SGLang retraction). */
  private freeForRecompute(victim: SimRequest): void {
    const before = Math.max(0, victim.prefillTarget - victim.computed);
    this.cache.free(victim.refs, victim.privateBlocks);
    victim.refs = [];
    victim.privateBlocks = 0;
    victim.computed = 0;
    victim.hashedUpTo = 0;
    victim.restoredBlocks = 0;
    victim.prefillTarget = victim.known;
    victim.preemptions++;
    this.preemptions++;
    this.pendingPrefillTokens += victim.known - before;
  }

  private reject(req: SimRequest, nowMs: number): void {
    this.pendingPrefillTokens -= Math.max(0, req.prefillTarget - req.computed);
    this.activeRequests--;
    this.sink.rejected(req, nowMs);
  }

  /** Applies the pass that just ended: computed tokens, cache registration, emissions, completions. */
  finishPass(nowMs: number): void {
    this.passes++;
    const sched = this.sched;
    const bs = this.bs;
    const cache = this.cache;
    const host = this.host;
    const offer = cache.prefixCaching || host !== null;
    const prefillRole = this.cfg.role === 'prefill';
    const leaving = this.leaving;
    const schedN = this.schedN;
    this.schedN = 0;
    for (let k = 0; k < schedN; k++) {
      const req = sched[k];
      const t = req.scheduled;
      req.scheduled = 0;
      const inPrefill = req.computed < req.prefillTarget;
      req.computed += t;
      if (inPrefill) this.pendingPrefillTokens -= t;
      if (offer) {
        // Offer newly full prompt blocks to the prefix cache (and write them through to G2).
        const hashes = req.hashes(bs);
        let full = Math.floor(req.computed / bs);
        if (full > hashes.length) full = hashes.length;
        for (let j = req.hashedUpTo; j < full; j++) {
          const h = hashes[j];
          if (cache.promote(h)) {
            req.privateBlocks--;
            req.refs.push(h);
          }
          if (host) host.store(h, nowMs);
        }
        if (full > req.hashedUpTo) req.hashedUpTo = full;
      }
      if (inPrefill && req.computed < req.prefillTarget) continue; // mid-prompt chunk: nothing to emit
      if (prefillRole && req.emitted === 0) {
        this.release(req);
        leaving.push(req);
        continue;
      }
      let n = 1;
      if (!inPrefill && this.tokensPerStep > 1) {
        const acc = req.mtpCarry + this.tokensPerStep;
        n = Math.floor(acc);
        req.mtpCarry = acc - n;
      }
      const left = req.osl - req.emitted;
      if (n > left) n = left;
      if (!inPrefill) req.computed += n - 1; // accepted MTP drafts were verified in this pass
      req.known += n;
      req.emitted += n;
      this.sink.tokens(req, n, nowMs);
      if (req.emitted >= req.osl) {
        this.release(req);
        leaving.push(req);
      }
    }
    if (leaving.length === 0) return;
    // Compact in place (order kept): no per-pass array allocation.
    const running = this.running;
    let keep = 0;
    for (let i = 0; i < running.length; i++) if (running[i].scheduled !== LEFT) running[keep++] = running[i];
    while (running.length > keep) running.pop();
    for (const req of leaving) {
      req.scheduled = 0;
      if (req.emitted >= req.osl) this.sink.finished(req, nowMs);
      else this.sink.prefillDone(req, nowMs);
    }
    while (leaving.length > 0) leaving.pop();
    if (running.length === 0 && this.waiting.size === 0) this.newTokenRatio = SGLANG_INIT_NEW_TOKEN_RATIO;
  }

  /** Frees a request's blocks and marks it gone from this rank. */
  private release(req: SimRequest): void {
    this.cache.free(req.refs, req.privateBlocks);
    req.refs = [];
    req.privateBlocks = 0;
    req.scheduled = LEFT;
    this.activeRequests--;
  }
}
