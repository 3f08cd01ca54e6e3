// Worker selection: round-robin, or Dynamo's KV-aware cost
//   cost = prefill_load_scale × max(0, prefill_blocks − credit) + decode_blocks
//   credit = overlap_score_credit × device overlap + host_cache_hit_weight × host-only overlap
// with temperature 0 → argmin (ties: fewest cached blocks, then lowest slot) and T > 0 → costs
// normalized to [0,1], p ∝ exp(−norm/T), one seeded inverse-CDF draw.
import type { Prng } from '../prng.js';
import type { RankScheduler } from '../engine/rank-scheduler.js';
import type { SimRequest } from '../engine/sim-request.js';
import { PrefixIndex } from './prefix-index.js';

export type RouterMode = 'kv_router' | 'round_robin';

export interface RouterConfig {
  mode: RouterMode;
  overlapScoreCredit: number;
  prefillLoadScale: number;
  temperature: number;
  hostCacheHitWeight: number;
  diskCacheHitWeight: number;
}

export const DEFAULT_ROUTER: RouterConfig = {
  mode: 'round_robin',
  overlapScoreCredit: 1,
  prefillLoadScale: 1,
  temperature: 0,
  hostCacheHitWeight: 0.75,
  diskCacheHitWeight: 0.25,
};

/** A routing target: one attention rank, identified by a stable slot number. */
export interface RouteTarget {
  slot: number;
  rank: RankScheduler;
}

export class Router {
  readonly device = new PrefixIndex();
  readonly host = new PrefixIndex();
  private rr = 0;
  private dev = new Int32Array(0);
  private hst = new Int32Array(0);
  private cost = new Float64Array(0);

  constructor(
    private readonly cfg: RouterConfig,
    private readonly blockSize: number,
    /** Overlap-blind (the decode router in disaggregated replay). */
    private readonly useOverlap: boolean,
    private readonly prng: Prng,
  ) {}

  pick(req: SimRequest, targets: RouteTarget[], slotCount: number): RouteTarget {
    if (targets.length === 1) return targets[0];
    if (targets.length === 0) throw new Error(`no ready worker to route request ${req.id} to`);
    if (this.cfg.mode === 'round_robin') return targets[this.rr++ % targets.length];
    const bs = this.blockSize;
    if (this.dev.length < slotCount) {
      this.dev = new Int32Array(slotCount * 2);
      this.hst = new Int32Array(slotCount * 2);
    }
    if (this.cost.length < targets.length) this.cost = new Float64Array(targets.length * 2);
    const hashes = this.useOverlap ? req.hashes(bs) : null;
    if (hashes) {
      const limit = Math.floor((req.isl - 1) / bs);
      this.device.overlaps(hashes, limit, this.dev);
      this.host.overlaps(hashes, limit, this.hst);
    }
    const { prefillLoadScale: scale, overlapScoreCredit: credit, hostCacheHitWeight: hostW } = this.cfg;
    const reqBlocks = req.isl / bs;
    let best = 0;
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < targets.length; i++) {
      const { slot, rank } = targets[i];
      let overlap = 0;
      if (hashes) {
        const d = this.dev[slot];
        const h = this.hst[slot] > d ? this.hst[slot] - d : 0;
        overlap = credit * d + hostW * h;
      }
      const prefill = rank.pendingPrefillTokens / bs + reqBlocks - overlap;
      const c = scale * (prefill > 0 ? prefill : 0) + rank.routedBlocks;
      this.cost[i] = c;
      if (c < lo) lo = c;
      if (c > hi) hi = c;
      if (i > 0) {
        const b = this.cost[best];
        if (c < b || (c === b && rank.cache.cachedBlocks() < targets[best].rank.cache.cachedBlocks())) best = i;
      }
    }
    const T = this.cfg.temperature;
    if (T <= 0) return targets[best];
    // Softmax over normalized costs (uniform when all equal), inverse-CDF with the seeded PRNG.
    const span = hi - lo;
    let sum = 0;
    for (let i = 0; i < targets.length; i++) {
      const norm = span > 0 ? (this.cost[i] - lo) / span : 0;
      const p = Math.exp(-norm / T);
      this.cost[i] = p;
      sum += p;
    }
    let u = this.prng.next() * sum;
    for (let i = 0; i < targets.length; i++) {
      u -= this.cost[i];
      if (u < 0) return targets[i];
    }
    return targets[targets.length - 1];
  }
}
