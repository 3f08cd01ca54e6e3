// Batch selection over a candidate set.
//
// Single objective — GP-UCB-PE (Contal et al. 2013): the first point maximizes
// UCB = μ + β·σ; the others maximize the posterior standard deviation, conditioned on fantasies of
// the points already chosen (and of pending trials), inside the "relevant region" (see REGION_BETA).
// Every EXPLOIT_EVERY-th pick maximizes the fantasy-conditioned UCB again instead (a kriging-believer
// UCB pick): with 1 UCB + 15 pure-exploration picks per round of 16, the second round on the sweeper
// benchmark spaces rarely improved on the first; a third of the batch exploiting fixes that.
// The pick after each of those (1, 4, 7, …) is a trust-region pick when the caller marks `local`
// candidates (the incumbent's single-coordinate neighbours): the best fantasy-conditioned UCB among
// them. Global UCB alone kept missing one-knob improvements of the incumbent whose predicted mean
// was only slightly above it (e.g. the one change that leaves a 1-GPU corner optimum).
// With shape groups (the candidates' parallel shapes), a batch takes at most SHAPE_CAP picks of one
// shape while others remain: the fantasies barely lower the UCB of a shape's engine-knob variants
// (the knobs matter little), so a round used to spend 6+ of 16 points on one shape.
// Multi-objective — per-objective GPs combined by random hypervolume scalarizations (Golovin &
// Zhang 2020): each batch point draws weights w on the positive unit sphere and maximizes
// s_w(x) = minᵢ max(0, UCBᵢ(x) − rᵢ)/wᵢ, with UCB taken from the fantasy-conditioned variance
// so later picks avoid the earlier ones. Both multiply by the feasibility probability p(x).
import type { FantasyBelief } from './fantasy.js';
import type { Prng } from './prng.js';

export interface BatchRequest {
  beliefs: readonly FantasyBelief[];
  /** Encoded candidates (for fantasizing the chosen ones). */
  encoded: readonly Float64Array[];
  /** Feasibility probability per candidate, or null when every trial so far was feasible. */
  feasibility: Float64Array | null;
  /** 1 for candidates in the trust region around the incumbent (single-objective local picks). */
  local?: Uint8Array;
  count: number;
  /**
   * Per candidate, its parallel-shape group (candidates that differ only in engine, router or planner
   * knobs share one), or null: single-objective batches take at most `groupCap` picks per group
   * while candidates of other groups remain.
   */
  groups?: Int32Array | null;
  groupCap?: number;
  beta: number;
  /** Per objective, the hypervolume reference in standardized units (multi-objective only). */
  reference: readonly number[];
  rng: Prng;
}

export function selectBatch(req: BatchRequest): number[] {
  return req.beliefs.length === 1 ? selectUcbPe(req) : selectHypervolume(req);
}

/**
 * Relevant region for the pure-exploration picks: {x : μ + 0.5σ ≥ max(μ − 0.5σ)}, with a penalty of
 * 10 per standardized unit outside it (Vizier's GP-UCB-PE defaults). A tighter coefficient than the
 * UCB's keeps batch exploration near plausible optima instead of anywhere uncertain.
 */
const REGION_BETA = 0.5;
const REGION_PENALTY = 10;
/** Every this-many picks of a batch (0, 3, 6, …) is a UCB pick, the next a trust-region pick; the rest explore. */
const EXPLOIT_EVERY = 3;

function argmax(score: (i: number) => number, size: number, allowed: (i: number) => boolean): number {
  let best = -1;
  let bestValue = -Infinity;
  for (let i = 0; i < size; i++) {
    if (!allowed(i)) continue;
    const v = score(i);
    if (v > bestValue) {
      bestValue = v;
      best = i;
    }
  }
  return best;
}

function selectUcbPe(req: BatchRequest): number[] {
  const b = req.beliefs[0];
  const size = b.size;
  const p = req.feasibility;
  const taken = new Uint8Array(size);
  const picks: number[] = [];
  const ucb = new Float64Array(size);
  const regionUcb = new Float64Array(size);
  let minUcb = Infinity;
  let threshold = -Infinity;
  for (let i = 0; i < size; i++) {
    const sd = Math.sqrt(b.variance[i]);
    ucb[i] = b.mean[i] + req.beta * sd;
    regionUcb[i] = b.mean[i] + REGION_BETA * sd;
    minUcb = Math.min(minUcb, ucb[i]);
    // The LCB bar counts only candidates that are probably feasible.
    if (!p || p[i] >= 0.5) threshold = Math.max(threshold, b.mean[i] - REGION_BETA * sd);
  }
  // Shift UCB to ≥ 0 so multiplying by p(x) ranks consistently.
  const first = argmax((i) => (p ? p[i] * (ucb[i] - minUcb) : ucb[i]), size, () => true);
  if (first < 0) return picks;
  const groups = req.groups ?? null;
  const cap = req.groupCap ?? Infinity;
  const perGroup = new Map<number, number>();
  const full = (i: number): boolean => groups !== null && (perGroup.get(groups[i]) ?? 0) >= cap;
  const take = (i: number): void => {
    picks.push(i);
    taken[i] = 1;
    if (groups) perGroup.set(groups[i], (perGroup.get(groups[i]) ?? 0) + 1);
  };
  take(first);
  while (picks.length < Math.min(req.count, size)) {
    b.addFantasy(req.encoded[picks[picks.length - 1]]);
    // Pure exploration inside the relevant region; leaving it costs REGION_PENALTY per unit of
    // shortfall (a soft version of Contal et al.'s hard region, so the set is never empty).
    const exploit = picks.length % EXPLOIT_EVERY === 0;
    const local = req.local && picks.length % EXPLOIT_EVERY === 1 ? req.local : null;
    if (local) {
      const next = argmax(
        (i) => (p ? p[i] : 1) * (b.mean[i] + req.beta * Math.sqrt(b.variance[i]) - minUcb),
        size,
        (i) => !taken[i] && local[i] === 1 && !full(i),
      );
      if (next >= 0) {
        take(next);
        continue;
      }
    }
    const score = exploit
      ? (i: number): number => (p ? p[i] : 1) * (b.mean[i] + req.beta * Math.sqrt(b.variance[i]) - minUcb)
      : (i: number): number => (p ? p[i] : 1) * Math.sqrt(b.variance[i]) - REGION_PENALTY * Math.max(0, threshold - regionUcb[i]);
    let next = argmax(score, size, (i) => !taken[i] && !full(i));
    if (next < 0) next = argmax(score, size, (i) => !taken[i]);
    if (next < 0) break;
    take(next);
  }
  return picks;
}

function selectHypervolume(req: BatchRequest): number[] {
  const { beliefs, reference, beta } = req;
  const size = beliefs[0].size;
  const m = beliefs.length;
  const p = req.feasibility;
  const taken = new Uint8Array(size);
  const picks: number[] = [];
  while (picks.length < Math.min(req.count, size)) {
    const w = new Float64Array(m);
    let norm = 0;
    for (let o = 0; o < m; o++) {
      w[o] = Math.abs(req.rng.normal()) + 1e-6;
      norm += w[o] * w[o];
    }
    for (let o = 0; o < m; o++) w[o] /= Math.sqrt(norm);
    const scalarized = (i: number): number => {
      let s = Infinity;
      for (let o = 0; o < m; o++) {
        const u = beliefs[o].mean[i] + beta * Math.sqrt(beliefs[o].variance[i]);
        s = Math.min(s, Math.max(0, u - reference[o]) / w[o]);
      }
      return (p ? p[i] : 1) * s;
    };
    let next = argmax(scalarized, size, (i) => !taken[i]);
    // Every candidate scored 0 (all below the reference somewhere): fall back to pure exploration.
    if (next >= 0 && scalarized(next) <= 0) {
      next = argmax(
        (i) => {
          let v = 0;
          for (let o = 0; o < m; o++) v += beliefs[o].variance[i];
          return (p ? p[i] : 1) * v;
        },
        size,
        (i) => !taken[i],
      );
    }
    if (next < 0) break;
    picks.push(next);
    taken[next] = 1;
    if (picks.length < req.count) for (const b of beliefs) b.addFantasy(req.encoded[next]);
  }
  return picks;
}
