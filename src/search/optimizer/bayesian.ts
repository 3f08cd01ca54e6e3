// The `bayesian` (rapid) ask: quasi-random design until the GP has data, then GP-UCB-PE (or random
// hypervolume scalarizations for several objectives) over a deterministic candidate set, with a
// feasibility GP down-weighting regions where trials failed.
import { paretoFrontIndices } from '../pareto.js';
import { selectBatch } from './acquisition.js';
import { basinIndex } from './basins.js';
import { generateCandidates } from './candidates.js';
import { coordinateNeighbourhood } from './neighbourhood.js';
import { FantasyBelief } from './fantasy.js';
import { fitFeasibility } from './feasibility.js';
import { GpPosterior, defaultHyper, fitHyper } from './gp.js';
import type { AnalyticPrior, AskContext, Objective, Projector, StoredTrial } from './optimizer.js';
import type { PointMemo } from './point-memo.js';
import { finiteSize, pointKey, restrictToSpace, type Dimension, type Point } from './space.js';
import { selectObservations } from './subset.js';

/** Tunables (documented defaults; exported so tests and the benchmark can report them). */
export const BAYESIAN_DEFAULTS = {
  /** Trials told before the GP takes over from the quasi-random design. */
  initialDesign: 8,
  /** UCB exploration coefficient (Vizier's GP-UCB-PE default). */
  beta: 1.8,
  /**
   * Observations the posterior conditions on (CLARIFICATIONS §E: at most ~500). 256 rather than 500:
   * the O(n³) factorization at 300 observations drops from ~4.5M to ~2.8M multiply-adds (the
   * acquisition's C·n² part is held near acquisitionFlops either way), and the MoE sweeper benchmark
   * asked the same points on all 20 seeds checked (the subset keeps the best, recent and a spread).
   */
  gpCap: 256,
  /** Observations the hyperparameter fit sees (a subset of the above: each step is O(m³)). */
  fitCap: 80,
  coldIterations: 60,
  warmIterations: 8,
  /** Relative growth of the modelled observations that triggers a (warm) hyperparameter refit. */
  refitGrowth: 0.1,
  /** Rough floating-point budget of one acquisition pass; sets the candidate-set size. */
  acquisitionFlops: 1.2e7,
  minCandidates: 256,
  maxCandidates: 2048,
  /** Best points whose neighbourhoods seed local candidates. */
  anchors: 8,
  /** Best points whose single-coordinate neighbours the batch's local (trust-region) picks choose from. */
  localAnchors: 1,
} as const;

/** With a projector: candidates wanted per requested point before the set is topped up, and uniform draws per point to top it up with. */
const TOP_UP_FACTOR = 4;
/** Picks of one parallel shape per batch while other shapes remain (acquisition.ts). */
const SHAPE_CAP = 2;
const TOP_UP_TRIES = 64;

export function bayesianAsk(ctx: AskContext, k: number, design: () => Point[]): Point[] {
  const cfg = BAYESIAN_DEFAULTS;
  const s = ctx.state;
  // The objective GPs model what *asking* a point yields, so they learn from the asked points (repeats
  // of an evaluation teach the plateau). An evaluated twin (a projection) has the same value but sits
  // where the projection put it: modelled too, it made an engine size the projection could not honour
  // look good and cut the sweeper benchmark's sample efficiency (trials to 99 %: dense agg 39.5 → 23.5
  // with asked points only). Evaluated points still feed the feasibility model and the seen/near sets.
  const distinct = distinctEvaluations(ctx.memo, s.trials);
  const modelled = distinct.filter((t) => t.f && t.y && t.asked);
  const minDesign = Math.min(cfg.initialDesign, finiteSize(s.space));
  if (s.trials.length < minDesign || modelled.length < 2) return design();

  const { codec, memo } = ctx;
  const featureDim = codec.featureDim;
  const dims = codec.dimCount;
  const x = modelled.map((t) => memo.encode(t.p));
  // Sign-normalize (higher is better) and standardize each objective.
  const z = s.objectives.map((o, oi) => {
    const raw = modelled.map((t) => (o.direction === 'max' ? t.y![oi] : -t.y![oi]));
    const mean = raw.reduce((a, b) => a + b, 0) / raw.length;
    const sd = Math.sqrt(raw.reduce((a, b) => a + (b - mean) ** 2, 0) / raw.length);
    return raw.map((v) => (v - mean) / (sd > 1e-12 * Math.max(1, Math.abs(mean)) ? sd : 1));
  });

  // Hyperparameters move little once there is data: refit (warm) only when the modelled set has grown
  // by refitGrowth since the last fit, which keeps a late ask at a few hundred observations cheap.
  const refit = s.hyper.length !== s.objectives.length || s.fittedOn === undefined || modelled.length >= s.fittedOn * (1 + cfg.refitGrowth);
  if (refit) s.fittedOn = modelled.length;
  // The analytic prior (when the branch has one and this optimizer asks with it): per objective a
  // linear map of the estimate onto the standardized observations, m(x) = a + b·prior(x), b ≥ 0; the
  // GP models the residuals z − m and the acquisition adds m back (a GP with prior mean m).
  const prior = s.prior_mean && ctx.prior ? priorMeans(ctx.prior, s.objectives, modelled.map((t) => t.p), z) : null;
  const gps = z.map((zo0, oi) => {
    const zo = prior ? zo0.map((v, i) => v - prior.observed[oi][i]) : zo0;
    const idx = selectObservations(x.length, cfg.gpCap, zo);
    const fitIdx = selectObservations(idx.length, cfg.fitCap, idx.map((i) => zo[i])).map((j) => idx[j]);
    const warm = s.hyper[oi];
    const hyper = !refit && warm ? warm : fitHyper(
      fitIdx.map((i) => x[i]),
      fitIdx.map((i) => zo[i]),
      featureDim,
      dims,
      warm ?? defaultHyper(dims),
      warm ? cfg.warmIterations : cfg.coldIterations,
    );
    s.hyper[oi] = hyper;
    return new GpPosterior(idx.map((i) => x[i]), idx.map((i) => zo[i]), featureDim, hyper);
  });

  const anyInfeasible = distinct.some((t) => !t.f);
  const feasibility = anyInfeasible
    ? fitFeasibility(
        distinct.map((t) => memo.encode(t.p)),
        distinct.map((t) => t.f),
        featureDim,
        dims,
        s.feasibilityHyper,
        { cap: cfg.gpCap, fitCap: cfg.fitCap, coldIterations: cfg.coldIterations, warmIterations: refit ? cfg.warmIterations : 0 },
      )
    : null;
  if (feasibility) s.feasibilityHyper = feasibility.hyper;

  const n = gps[0].n;
  const perCandidate = gps.length * (n * n * 0.5 + n * codec.featureCount) + (feasibility ? distinct.length * codec.featureCount : 0);
  // Never fewer than 4 candidates per requested point, so a large batch is not starved.
  const budget = Math.max(4 * k, cfg.minCandidates, Math.min(cfg.maxCandidates, Math.floor(cfg.acquisitionFlops / Math.max(1, perCandidate))));
  const anchors = anchorsOf(modelled.map((t) => t.p), z, cfg.anchors);
  const project = ctx.project;
  const generated = generateCandidates({
    codec,
    rng: ctx.rng,
    halton: ctx.candidateStream,
    haltonStart: s.candidates,
    budget,
    anchors,
    exclude: ctx.seen,
    // With a projector, repeats are recognized exactly after projection (below).
    near: project ? [] : [...s.trials.flatMap((t) => (t.o ? [t.p, t.o] : [t.p])), ...s.pending],
    memo,
    ...(project ? {} : { basins: basinIndex(memo, s.trials) }),
  });
  s.candidates += generated.haltonUsed;
  let { points, keys } = generated;
  if (project) {
    const projected = projectedCandidates(project, s.space, ctx.seen);
    for (const c of generated.points) projected.add(c);
    // Late in a long branch most candidates project onto seen points: top the set up with projected
    // uniform samples, so the ask comes back short (or empty: the branch is exhausted) only when they
    // keep landing on seen points too.
    for (let tries = 0; tries < TOP_UP_TRIES * k && projected.points.length < TOP_UP_FACTOR * k; tries++) projected.add(codec.sampleUniform(ctx.rng));
    ({ points, keys } = projected);
  }
  if (points.length === 0) return [];

  // The incumbent's single-coordinate neighbours: the trust region the local picks choose from.
  const localKeys = new Set(
    anchors
      .slice(0, cfg.localAnchors)
      .flatMap((a) => coordinateNeighbourhood(codec, a, 1, Infinity).map((q) => pointKey(s.space, project ? restrictToSpace(s.space, project(q)) : q))),
  );
  const local = Uint8Array.from(keys, (key) => (localKeys.has(key) ? 1 : 0));
  const encoded = points.map((p) => codec.encode(p));
  const beliefs = gps.map((gp) => new FantasyBelief(gp, encoded));
  if (prior) {
    const at = prior.at(points);
    beliefs.forEach((b, oi) => {
      for (let i = 0; i < b.size; i++) b.mean[i] += at[oi][i];
    });
  }
  for (const p of s.pending) {
    const e = memo.encode(p);
    for (const b of beliefs) b.addFantasy(e);
  }
  // Parallel-shape groups of the candidates (see acquisition.ts), for optimizers that know the shape dimensions.
  const shapeDims = s.shape ? s.space.filter((d) => s.shape!.includes(d.name)) : [];
  const groupIds = new Map<string, number>();
  const groups =
    shapeDims.length > 0
      ? Int32Array.from(points, (q) => {
          const key = pointKey(shapeDims, q);
          let g = groupIds.get(key);
          if (g === undefined) groupIds.set(key, (g = groupIds.size));
          return g;
        })
      : null;
  const picks = selectBatch({
    groups,
    groupCap: SHAPE_CAP,
    beliefs,
    encoded,
    feasibility: feasibility ? feasibility.probability(encoded) : null,
    local,
    count: k,
    beta: cfg.beta,
    reference: z.map((zo) => Math.min(...zo) - 0.1),
    rng: ctx.rng,
  });
  return picks.map((i) => points[i]);
}

/**
 * Candidates' projections, each distinct one once (first added wins), without those already asked or
 * evaluated: what each candidate would really evaluate, so the models score that.
 */
function projectedCandidates(project: Projector, space: readonly Dimension[], seen: ReadonlySet<string>): { points: Point[]; keys: string[]; add: (candidate: Point) => void } {
  const points: Point[] = [];
  const keys: string[] = [];
  const taken = new Set<string>();
  const add = (candidate: Point): void => {
    const q = restrictToSpace(space, project(candidate));
    const key = pointKey(space, q);
    if (seen.has(key) || taken.has(key)) return;
    taken.add(key);
    points.push(q);
    keys.push(key);
  };
  return { points, keys, add };
}

/** One observation per distinct point among the asked (`p`) and evaluated (`o`) ones, first tell wins. */
function distinctEvaluations(memo: PointMemo, trials: readonly StoredTrial[]): (StoredTrial & { asked: boolean })[] {
  const keys = new Set<string>();
  const out: (StoredTrial & { asked: boolean })[] = [];
  for (const t of trials) {
    for (const p of t.o ? [t.p, t.o] : [t.p]) {
      const k = memo.key(p);
      if (keys.has(k)) continue;
      keys.add(k);
      out.push({ p, f: t.f, ...(t.y ? { y: t.y } : {}), asked: p === t.p });
    }
  }
  return out;
}

/** The best points (single objective) or an even spread of the Pareto front (several). */
function anchorsOf(points: readonly Point[], z: readonly number[][], count: number): Point[] {
  if (z.length === 1) {
    const order = points.map((_, i) => i).sort((a, b) => z[0][b] - z[0][a] || a - b);
    return order.slice(0, count).map((i) => points[i]);
  }
  const vectors = points.map((_, i) => z.map((zo) => zo[i]));
  const front = paretoFrontIndices(vectors, z.map(() => 'max' as const));
  if (front.length <= count) return front.map((i) => points[i]);
  return Array.from({ length: count }, (_, k) => points[front[Math.floor((k * front.length) / count)]]);
}

/** Per objective, the prior mean at the observations and a function giving it at any points (see bayesianAsk). */
function priorMeans(
  prior: AnalyticPrior,
  objectives: readonly Objective[],
  observed: readonly Point[],
  z: readonly number[][],
): { observed: number[][]; at: (points: readonly Point[]) => number[][] } {
  const signed = (values: (number[] | null)[]): (number | null)[][] =>
    objectives.map((o, oi) => values.map((v) => (v && Number.isFinite(v[oi]) ? (o.direction === 'max' ? v[oi] : -v[oi]) : null)));
  const q = signed(prior(observed as Point[]));
  const maps = objectives.map((_, oi) => {
    const pairs = q[oi].flatMap((v, i) => (v === null ? [] : [[v, z[oi][i]] as const]));
    if (pairs.length < 2) return { a: 0, b: 0, fill: 0 };
    const mq = pairs.reduce((s, [v]) => s + v, 0) / pairs.length;
    const mz = pairs.reduce((s, [, y]) => s + y, 0) / pairs.length;
    let cov = 0;
    let vq = 0;
    for (const [v, y] of pairs) {
      cov += (v - mq) * (y - mz);
      vq += (v - mq) ** 2;
    }
    const b = vq > 0 ? Math.max(0, cov / vq) : 0;
    // A point without an estimate gets the mean of those with one.
    return { a: mz - b * mq, b, fill: mq };
  });
  const apply = (qs: (number | null)[][]): number[][] => qs.map((col, oi) => col.map((v) => maps[oi].a + maps[oi].b * (v ?? maps[oi].fill)));
  return { observed: apply(q), at: (points) => apply(signed(prior(points as Point[]))) };
}
