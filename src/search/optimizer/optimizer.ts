// Ask/tell optimizer used by the sweep workflow. Pure and deterministic: all randomness comes from
// the seeded PRNG whose state is part of OptimizerState, so `restoreOptimizer(opt.state())` asks
// exactly what `opt` would (Temporal replay / continue-as-new). Same seed + same tells ⇒ same asks.
import { InputError } from '../../errors.js';
import { bayesianAsk } from './bayesian.js';
import { haltonUnseen, uniformUnseen } from './design.js';
import type { GpHyper } from './gp.js';
import { ScrambledHalton } from './halton.js';
import { PointMemo } from './point-memo.js';
import { Prng, type PrngState } from './prng.js';
import { pointKey, restrictToSpace, SpaceCodec, validateSpace, type Dimension, type Point } from './space.js';

export type Algorithm = 'bayesian' | 'random';

export interface Objective {
  name: string;
  direction: 'max' | 'min';
}

export interface OptimizerOptions {
  space: Dimension[];
  algorithm: Algorithm;
  objectives: Objective[];
  seed: number;
  /** Asked first, in order (e.g. the seed's feature defaults), before any design point. */
  initialPoints?: Point[];
  /** Model the objectives around the runtime's analytic prior (OptimizerRuntime.prior) when it has one. */
  priorMean?: boolean;
  /**
   * The dimensions that make a candidate's parallel shape (latent parallel features, backend): a batch
   * spreads over shapes (OptimizerState.shape).
   */
  shapeDimensions?: string[];
}

/**
 * Maps an ask onto the point the caller would really evaluate (e.g. latent parallel features projected
 * onto a legal config). Pure and deterministic, and idempotent on its own outputs. Not part of the
 * state: the caller hands the same function to `createOptimizer` and `restoreOptimizer` (a
 * different or missing projector gives different asks).
 */
export type Projector = (p: Point) => Point;

/**
 * An analytic estimate of each point's raw objective values (objective order), or null where there is
 * none: the GP's prior mean (bayesian.ts). Pure and deterministic, like the projector; not part of the
 * state, so the caller hands the same one to `createOptimizer` and `restoreOptimizer`.
 */
export type AnalyticPrior = (points: Point[]) => (number[] | null)[];

/** Runtime inputs of an optimizer that are not serialized with its state. */
export interface OptimizerRuntime {
  /**
   * With a projector, `bayesian` asks only points that are their own projection: it projects every
   * candidate, models and scores what would be evaluated, and never asks a point whose projection was
   * already asked or evaluated (no repeats). Without one, asks are projected by the caller after the
   * fact (the `observed` point of a tell).
   */
  project?: Projector;
  /**
   * With a projector: the smallest legal points like `p`, its other dimensions kept — first the one for
   * p's own categoricals (e.g. the fewest-GPU config for its backend), then one for each other value of
   * the categorical that decides what is legal (each other backend's fewest-GPU config). The design
   * asks them as its low corners instead of projecting the corner.
   */
  lowCorners?: (p: Point) => Point[];
  /** Used only by an optimizer created with `priorMean` (OptimizerState.prior_mean). */
  prior?: AnalyticPrior;
}

export interface Trial {
  /** The point as asked (matches the pending ask). */
  point: Point;
  /**
   * The point actually evaluated, when the caller mapped the ask onto another one (e.g. latent parallel
   * features projected onto a legal config). The models learn from it as well as from the asked point.
   */
  observed?: Point;
  /** Raw objective values (required when feasible). */
  values?: Record<string, number>;
  feasible: boolean;
}

/** A told trial, compactly: `y` are raw values in objective order, present only when modelled. */
export interface StoredTrial {
  p: Point;
  /** The evaluated point when it differs from `p` (see Trial.observed). */
  o?: Point;
  y?: number[];
  f: boolean;
}

export interface OptimizerState {
  v: 1;
  algorithm: Algorithm;
  space: Dimension[];
  objectives: Objective[];
  seed: number;
  rng: PrngState;
  /** Next index of the initial-design Halton sequence. */
  design: number;
  /** Next index of the candidate-set Halton sequence. */
  candidates: number;
  /** Injected initial points not asked yet. */
  queue: Point[];
  trials: StoredTrial[];
  /** Asked but not told: fantasized by the GP and never asked twice. */
  pending: Point[];
  /** Last fitted GP hyperparameters per objective (warm start), empty before the first fit. */
  hyper: GpHyper[];
  feasibilityHyper: GpHyper | null;
  /**
   * Distinct evaluations the objective hyperparameters were last fitted on (refits happen as the data
   * grows, see BAYESIAN_DEFAULTS.refitGrowth). Absent in states written before it existed: refit.
   */
  fittedOn?: number;
  /**
   * Set for optimizers created with `priorMean`: asks model the objectives around the runtime's
   * analytic prior. Absent in states written before it existed, whose asks stay as they were.
   */
  prior_mean?: true;
  /** The shape dimensions (OptimizerOptions.shapeDimensions); absent in older states: no spreading. */
  shape?: string[];
}

export interface Optimizer {
  /**
   * Up to n new points. Fewer only when a finite space has no unobserved, unpending point left.
   */
  ask(n: number): Point[];
  tell(trials: Trial[]): void;
  state(): OptimizerState;
  /**
   * Takes over the result of an ask run elsewhere on this optimizer's state (a Temporal local
   * activity): everything but the told trials, which an ask never changes. Leaves this optimizer
   * exactly as `restoreOptimizer({ ...state(), ...asked })` would be, without rebuilding it from its
   * trials each round.
   */
  adoptAsk(asked: Omit<OptimizerState, 'trials'>): void;
}

/** Everything the ask strategies need besides the serializable state. */
export interface AskContext {
  state: OptimizerState;
  codec: SpaceCodec;
  rng: Prng;
  design: ScrambledHalton;
  candidateStream: ScrambledHalton;
  seen: Set<string>;
  /** Keys and encodings of the points this optimizer has built or been told (by object identity). */
  memo: PointMemo;
  project?: Projector;
  lowCorners?: (p: Point) => Point[];
  prior?: AnalyticPrior;
}

class SeededOptimizer implements Optimizer {
  private readonly ctx: AskContext;

  constructor(
    private readonly s: OptimizerState,
    runtime: OptimizerRuntime = {},
  ) {
    const codec = new SpaceCodec(s.space);
    const memo = new PointMemo(codec);
    this.ctx = {
      state: s,
      codec,
      rng: Prng.fromState(s.rng),
      design: new ScrambledHalton(s.space.length, s.seed),
      candidateStream: new ScrambledHalton(s.space.length, (s.seed + 0x9e3779b9) >>> 0),
      seen: new Set([...s.trials.flatMap((t) => (t.o ? [memo.key(t.p), memo.key(t.o)] : [memo.key(t.p)])), ...s.pending.map((p) => memo.key(p))]),
      memo,
      ...(runtime.project ? { project: runtime.project } : {}),
      ...(runtime.project && runtime.lowCorners ? { lowCorners: runtime.lowCorners } : {}),
      ...(runtime.prior ? { prior: runtime.prior } : {}),
    };
  }

  ask(n: number): Point[] {
    if (!Number.isInteger(n) || n < 0) throw new InputError(`optimizer: ask(n) needs a non-negative integer, got ${n}`);
    const { state: s, seen, memo } = this.ctx;
    const out: Point[] = [];
    const accept = (p: Point): void => {
      seen.add(memo.key(p));
      s.pending.push(p);
      out.push(p);
    };
    while (out.length < n && s.queue.length > 0) {
      const q = s.queue.shift()!;
      const p = s.algorithm === 'bayesian' && this.ctx.project ? this.projected(q) : q;
      if (!seen.has(memo.key(p))) accept(p);
    }
    if (out.length < n) {
      const rest =
        s.algorithm === 'random' ? this.askUniform(n - out.length) : bayesianAsk(this.ctx, n - out.length, () => this.askDesign(n - out.length));
      for (const p of rest) accept(p);
    }
    s.rng = this.ctx.rng.state();
    return out.map((p) => ({ ...p }));
  }

  private askUniform(k: number): Point[] {
    const out: Point[] = [];
    const seen = new Set(this.ctx.seen);
    for (let i = 0; i < k; i++) {
      const p = uniformUnseen(this.ctx.codec, this.ctx.rng, seen);
      if (!p) break;
      seen.add(pointKey(this.ctx.state.space, p));
      out.push(p);
    }
    return out;
  }

  private askDesign(k: number): Point[] {
    const out: Point[] = [];
    const seen = new Set(this.ctx.seen);
    const cursor = { index: this.ctx.state.design };
    // With a projector, design points whose projection was already seen are skipped (a bounded number
    // of tries per point, then whatever the design gives).
    const tries = this.ctx.project ? PROJECTED_DESIGN_TRIES : 1;
    // The low corners after the first (one per other backend), asked right after it.
    const corners: Point[] = [];
    for (let i = 0; i < k; i++) {
      let p: Point | null = null;
      while (!p && corners.length > 0) {
        const c = corners.shift()!;
        if (!seen.has(pointKey(this.ctx.state.space, c))) p = c;
      }
      for (let t = 0; t < tries && !p; t++) {
        const index = cursor.index;
        const q = haltonUnseen(this.ctx.codec, this.ctx.design, cursor, this.ctx.rng, seen);
        if (!q) break;
        if (!this.ctx.project) {
          p = q;
          break;
        }
        // The low design corner: the caller's smallest legal points like it (a corner projected as drawn
        // mostly misses the smallest configs, e.g. when its categoricals draw a data-parallel mode), one
        // per backend: a per-GPU optimum often sits at one backend's smallest config, and the GP rarely
        // leaves a backend whose smallest config came out poor for another backend's (the MoE 8-GPU
        // bench missed its 1 + 1-GPU vLLM optimum by 128 trials on 3 of 10 seeds when the corner drew SGLang).
        const low = index === 0 && cursor.index === 1 && this.ctx.lowCorners ? this.ctx.lowCorners(q).map((c) => this.projected(c)) : null;
        if (low) corners.push(...low.slice(1));
        const r = low ? low[0] : this.projected(q);
        const fresh = !seen.has(pointKey(this.ctx.state.space, r));
        seen.add(pointKey(this.ctx.state.space, q));
        if (fresh) {
          p = r;
          break;
        }
      }
      if (!p) break;
      seen.add(pointKey(this.ctx.state.space, p));
      out.push(p);
    }
    this.ctx.state.design = cursor.index;
    return out;
  }

  /** The projector's image of `p`, restricted to the space's dimensions and checked. */
  private projected(p: Point): Point {
    const q = restrictToSpace(this.ctx.state.space, this.ctx.project!(p));
    this.ctx.codec.checkPoint(q);
    return q;
  }

  tell(trials: Trial[]): void {
    const { state: s, codec, seen, memo } = this.ctx;
    for (const t of trials) {
      codec.checkPoint(t.point);
      const p = Object.fromEntries(s.space.map((d) => [d.name, t.point[d.name]]));
      const key = memo.key(p);
      const pi = s.pending.findIndex((q) => memo.key(q) === key);
      if (pi >= 0) s.pending.splice(pi, 1);
      seen.add(key);
      let o: Point | undefined;
      if (t.observed) {
        codec.checkPoint(t.observed);
        const q = Object.fromEntries(s.space.map((d) => [d.name, t.observed![d.name]]));
        const qKey = memo.key(q);
        seen.add(qKey);
        if (qKey !== key) o = q;
      }
      const where = o ? { p, o } : { p };
      if (!t.feasible) {
        s.trials.push({ ...where, f: false });
        continue;
      }
      const y = s.objectives.map((o) => {
        const v = t.values?.[o.name];
        if (typeof v !== 'number' || Number.isNaN(v))
          throw new InputError(`optimizer: feasible trial is missing objective '${o.name}' (tell it as infeasible instead)`);
        return v;
      });
      // A non-finite score (e.g. a missing e2e latency read as +inf) cannot be modelled; record the
      // trial as infeasible rather than inventing a finite stand-in.
      s.trials.push(y.every(Number.isFinite) ? { ...where, y, f: true } : { ...where, f: false });
    }
  }

  state(): OptimizerState {
    return JSON.parse(JSON.stringify(this.ctx.state)) as OptimizerState;
  }

  adoptAsk(asked: Omit<OptimizerState, 'trials'>): void {
    const s = this.ctx.state as unknown as Record<string, unknown>;
    const next = JSON.parse(JSON.stringify(asked)) as Record<string, unknown>;
    // In place, so the key order (and with it the serialized state) matches the restored one.
    for (const k of Object.keys(s)) if (k !== 'trials' && !(k in next)) delete s[k];
    for (const [k, v] of Object.entries(next)) if (k !== 'trials') s[k] = v;
    this.ctx.rng = Prng.fromState(this.ctx.state.rng);
    // An ask only adds pending points (its queue and Halton cursors are state): they are now seen.
    for (const p of this.ctx.state.pending) this.ctx.seen.add(this.ctx.memo.key(p));
  }
}

/** Design indices tried per design point when a projector maps them onto seen points. */
const PROJECTED_DESIGN_TRIES = 16;

export function createOptimizer(opts: OptimizerOptions, runtime: OptimizerRuntime = {}): Optimizer {
  validateSpace(opts.space);
  if (opts.objectives.length === 0) throw new InputError('optimizer: at least one objective is required');
  if (new Set(opts.objectives.map((o) => o.name)).size !== opts.objectives.length)
    throw new InputError('optimizer: objective names must be distinct');
  if (!Number.isInteger(opts.seed) || opts.seed < 0 || opts.seed > 0xffffffff)
    throw new InputError(`optimizer: seed must be an unsigned 32-bit integer, got ${opts.seed}`);
  const codec = new SpaceCodec(opts.space);
  for (const p of opts.initialPoints ?? []) codec.checkPoint(p);
  const state: OptimizerState = {
    v: 1,
    algorithm: opts.algorithm,
    space: JSON.parse(JSON.stringify(opts.space)) as Dimension[],
    objectives: opts.objectives.map((o) => ({ name: o.name, direction: o.direction })),
    seed: opts.seed,
    rng: Prng.fromSeed(opts.seed).state(),
    design: 0,
    candidates: 0,
    queue: (opts.initialPoints ?? []).map((p) => Object.fromEntries(opts.space.map((d) => [d.name, p[d.name]]))),
    trials: [],
    pending: [],
    hyper: [],
    feasibilityHyper: null,
    ...(opts.priorMean ? { prior_mean: true as const } : {}),
    ...(opts.shapeDimensions?.length ? { shape: opts.shapeDimensions.filter((n) => opts.space.some((d) => d.name === n)) } : {}),
  };
  return new SeededOptimizer(state, runtime);
}

export function restoreOptimizer(state: OptimizerState, runtime: OptimizerRuntime = {}): Optimizer {
  if (state?.v !== 1) throw new InputError('optimizer: unsupported or corrupt optimizer state (expected v: 1)');
  validateSpace(state.space);
  return new SeededOptimizer(JSON.parse(JSON.stringify(state)) as OptimizerState, runtime);
}
