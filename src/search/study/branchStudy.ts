// The round loop of one deployment_mode branch (seed "Parallel search projection", dynamo-facts §4).
// Deterministic given its inputs: the optimizer has its own seeded PRNG, candidates are materialized by
// a pure function, and outcomes are told in ask order whatever order replays finish in. The same code
// runs in runSweepLocal and inside the Temporal `branchStudy` workflow; only the ports differ.
import { createOptimizer, restoreOptimizer, type AnalyticPrior, type Optimizer, type OptimizerRuntime, type OptimizerState, type Projector, type Trial as OptimizerTrial } from '../optimizer/optimizer.js';
import type { Point } from '../optimizer/space.js';
import { scoreReport, signedScore, strictSlaViolation } from '../goal.js';
import { STATUS_OF_REASON, type EvalOutcome } from '../trial.js';
import type { MaterializedCandidate } from './materialize.js';
import { THOROUGH_INDEX, type BranchStudyPlan } from './plan.js';
import type { TrialRecord } from './trialRecord.js';

/** Side effects the loop needs, injected: local calls in runSweepLocal, activities under Temporal. */
export interface StudyPorts {
  materialize(points: Point[]): Promise<MaterializedCandidate[]>;
  /** Replays one wave (≤ parallel_evals candidates); outcomes in input order. */
  evaluate(candidates: MaterializedCandidate[]): Promise<EvalOutcome[]>;
  /**
   * Optional: runs one optimizer ask elsewhere (a Temporal local activity, whose recorded result a
   * replay reads instead of refitting the GP). Must equal `restoreOptimizer(state).ask(n)` and the
   * optimizer's state after it, without the told trials (an ask never changes them); the loop's
   * optimizer adopts that state and is carried on, not rebuilt. Absent, the loop asks in-process.
   */
  ask?(state: OptimizerState, n: number): Promise<{ points: Point[]; state: Omit<OptimizerState, 'trials'> }>;
  /**
   * Optional: the optimizer's projector (BranchMaterializer.projectPoint), for in-process asks. An
   * `ask` port must use the same one (the askOptimizer activity builds it from the branch context).
   */
  project?: Projector;
  /** With `project`: the optimizer's low design corners (BranchMaterializer.lowCorners). */
  lowCorners?: (p: Point) => Point[];
  /**
   * Optional, with `project`: the branch's analytic prior (activities/analytic-prior.ts) for in-process
   * asks, used when the plan asks for it (`analytic_prior`). An `ask` port builds the same one.
   */
  prior?: AnalyticPrior;
  /**
   * Optional, with `recall`: takes each finished round's trials out of memory (the Temporal branch
   * writes them to the store in chunks, so no payload or carried state grows with the trial count).
   * Afterwards the loop keeps only their count (`StudyState.stored_trials`).
   */
  store?(trials: TrialRecord[], state: StudyState): Promise<void>;
  /** Among the stored trials: the first replayed (not cache-hit) trial of each of these keys, if any. */
  recall?(keys: string[]): Promise<TrialRecord[]>;
}

export type StopReason = 'max_rounds' | 'projection_stalled' | 'exhausted' | 'stopped';

/** Everything needed to resume the loop exactly where it was (continue-as-new, resume of a failed sweep). */
export interface StudyState {
  round: number;
  /** Next index for `thorough` (its own cursor: it never asks the optimizer). */
  thorough_next: number;
  trials: TrialRecord[];
  /** Trials handed to `StudyPorts.store` (numbered 1..stored_trials, before `trials`); absent = 0. */
  stored_trials?: number;
  optimizer: OptimizerState | null;
  stop_reason: StopReason | null;
}

/** Trials of the study so far, stored or in memory. */
export function trialCount(state: StudyState): number {
  return (state.stored_trials ?? 0) + state.trials.length;
}

/** Hands the in-memory trials to `ports.store` (when the ports stream trials out) and forgets them. */
async function storeFinished(ports: StudyPorts, state: StudyState): Promise<void> {
  if (!ports.store || state.trials.length === 0) return;
  await ports.store(state.trials, state);
  state.stored_trials = trialCount(state);
  state.trials = [];
}

export interface StudyHooks {
  /** Polled between waves: true ends the study with what is done (stop reason `stopped`). */
  shouldStop?: () => boolean;
  /** Called after every wave with the current state (progress, checkpoints). */
  afterWave?: (state: StudyState) => Promise<void> | void;
  /** Called at the end of every round; returning 'pause' returns early with the state (continue-as-new). */
  afterRound?: (state: StudyState) => Promise<'continue' | 'pause'> | 'continue' | 'pause';
}

export interface StudyResult {
  state: StudyState;
  /** False when afterRound asked to pause: resume with `runBranchStudy(plan, ports, hooks, state)`. */
  finished: boolean;
}

export function initialStudyState(): StudyState {
  return { round: 0, thorough_next: 0, trials: [], optimizer: null, stop_reason: null };
}

function makeOptimizer(plan: BranchStudyPlan, state: StudyState, ports: Pick<StudyPorts, 'project' | 'lowCorners' | 'prior'>): Optimizer {
  const { project, lowCorners, prior } = ports;
  const runtime: OptimizerRuntime = project ? { project, ...(lowCorners ? { lowCorners } : {}), ...(prior ? { prior } : {}) } : {};
  if (state.optimizer) return restoreOptimizer(state.optimizer, runtime);
  return createOptimizer(
    {
      space: plan.dimensions,
      algorithm: plan.settings.algorithm,
      objectives: plan.objectives,
      seed: plan.settings.seed,
      initialPoints: plan.dimensions.length > 0 ? [plan.initial_point] : [],
      ...(plan.analytic_prior ? { priorMean: true } : {}),
      ...(plan.shape_dimensions ? { shapeDimensions: plan.shape_dimensions } : {}),
    },
    runtime,
  );
}

/** Turns one materialized candidate + outcome into a trial (scoring, strict SLA). */
function toTrial(
  plan: BranchStudyPlan,
  n: number,
  round: number,
  point: Point,
  m: MaterializedCandidate,
  outcome: EvalOutcome,
  cacheHit: boolean,
): TrialRecord {
  const base = {
    n,
    round,
    point,
    key: m.key,
    candidate: m.candidate,
    used_gpus: m.used_gpus,
    concurrency: m.concurrency,
    projection: m.projection,
    cache_hit: cacheHit,
  };
  if (!outcome.ok) {
    return {
      ...base,
      status: STATUS_OF_REASON[outcome.reason_category],
      reason_category: outcome.reason_category,
      reason: outcome.reason,
      objectives: null,
      metrics: null,
    };
  }
  const sla = strictSlaViolation(plan.goal, outcome.metrics);
  const scored = scoreReport(plan.goal, outcome.metrics);
  if (sla) {
    return { ...base, status: 'infeasible', reason_category: 'sla_constraint', reason: sla, objectives: scored.objectives, metrics: outcome.metrics };
  }
  return { ...base, status: 'feasible', reason_category: null, reason: null, objectives: scored.objectives, metrics: outcome.metrics };
}

/** The outcome a trial stands for, to answer a repeat of its candidate from the run-local cache. */
function outcomeOf(t: TrialRecord): EvalOutcome {
  if (t.metrics && (t.status === 'feasible' || t.reason_category === 'sla_constraint')) return { ok: true, metrics: t.metrics };
  return { ok: false, reason_category: t.reason_category ?? 'replay_runtime', reason: t.reason ?? 'failed' };
}

function isFeasible(t: TrialRecord): boolean {
  return t.status === 'feasible';
}

/**
 * Evaluates a batch of points: materialize, answer repeats from the run-local cache, coalesce in-batch
 * duplicates, replay the rest in waves of `parallel_evals`, and record the trials in point order.
 */
async function evaluatePoints(
  plan: BranchStudyPlan,
  ports: StudyPorts,
  state: StudyState,
  points: Point[],
  hooks: StudyHooks,
): Promise<TrialRecord[]> {
  const mats = await ports.materialize(points);
  // The run-local memo: a repeat is answered by the earlier trial of its key — never by a timed-out
  // one (CLARIFICATIONS E: timed_out results are never cached; a repeat replays again).
  const earlier = new Map<string, TrialRecord>();
  for (const t of state.trials) if (t.key && !t.cache_hit && t.status !== 'timed_out' && !earlier.has(t.key)) earlier.set(t.key, t);
  if (ports.recall && (state.stored_trials ?? 0) > 0) {
    const unknown = [...new Set(mats.filter((m) => !m.rejection && m.key && !earlier.has(m.key)).map((m) => m.key))];
    if (unknown.length > 0) for (const t of await ports.recall(unknown)) if (t.status !== 'timed_out') earlier.set(t.key, t);
  }

  // Which distinct keys need a replay, in first-seen order (so results never depend on completion order).
  const toRun: MaterializedCandidate[] = [];
  const runIndex = new Map<string, number>();
  for (const m of mats) {
    if (m.rejection || earlier.has(m.key) || runIndex.has(m.key)) continue;
    runIndex.set(m.key, toRun.length);
    toRun.push(m);
  }
  const outcomes: EvalOutcome[] = [];
  const wave = Math.max(1, plan.settings.parallel_evals);
  for (let i = 0; i < toRun.length; i += wave) {
    outcomes.push(...(await ports.evaluate(toRun.slice(i, i + wave))));
    if (hooks.afterWave) await hooks.afterWave(state);
  }

  const recorded: TrialRecord[] = [];
  const firstInBatch = new Set<string>();
  for (let i = 0; i < points.length; i++) {
    const m = mats[i];
    const n = trialCount(state) + recorded.length + 1;
    let outcome: EvalOutcome;
    let cacheHit = false;
    if (m.rejection) {
      outcome = { ok: false, ...m.rejection };
    } else if (earlier.has(m.key)) {
      outcome = outcomeOf(earlier.get(m.key)!);
      cacheHit = true;
    } else {
      outcome = outcomes[runIndex.get(m.key)!];
      // An in-batch duplicate shares the first one's replay and counts as a cache hit.
      cacheHit = firstInBatch.has(m.key);
      firstInBatch.add(m.key);
    }
    recorded.push(toTrial(plan, n, state.round, points[i], m, outcome, cacheHit));
  }
  return recorded;
}

/**
 * The point a trial actually evaluated: its latent parallel features replaced by the projection's
 * actual ones (the trial keeps the requested point as `point`; a compact stored trial keeps it as
 * `observed`).
 */
function observedPoint(dimensions: readonly { name: string }[], t: TrialRecord): Point {
  const actual = t.projection?.actual;
  if (!actual) return t.observed ? { ...t.point, ...t.observed } : t.point;
  const out: Point = { ...t.point };
  for (const d of dimensions) if (d.name in actual && d.name in out) out[d.name] = actual[d.name];
  return out;
}

/**
 * What the loop tells the optimizer about a trial. Exported so a told history can be rebuilt from
 * stored (compact) trials exactly as it was told (activities/ask-optimizer.ts).
 */
export function toldTrial(dimensions: readonly { name: string }[], t: TrialRecord): OptimizerTrial {
  const observed = observedPoint(dimensions, t);
  return isFeasible(t) && t.objectives ? { point: t.point, observed, values: t.objectives, feasible: true } : { point: t.point, observed, feasible: false };
}

function tellAll(plan: BranchStudyPlan, opt: Optimizer, trials: TrialRecord[]): void {
  opt.tell(trials.map((t) => toldTrial(plan.dimensions, t)));
}

/**
 * Runs (or resumes) the branch study. `rapid`: rounds of asks until `candidates_per_round` unique
 * successes, at most 11× that many attempts per round; a round that ends short stalls the branch.
 * `thorough`: every candidate of the complete enumeration in waves, ignoring max_rounds.
 */
export async function runBranchStudy(
  plan: BranchStudyPlan,
  ports: StudyPorts,
  hooks: StudyHooks = {},
  resume: StudyState = initialStudyState(),
): Promise<StudyResult> {
  const state: StudyState = { ...resume, trials: [...resume.trials] };
  if (state.stop_reason) return { state, finished: true };

  if (plan.settings.policy === 'thorough') {
    const total = plan.thorough_size ?? 0;
    const batch = Math.max(1, plan.settings.parallel_evals) * 4;
    while (state.thorough_next < total) {
      if (hooks.shouldStop?.()) {
        state.stop_reason = 'stopped';
        await storeFinished(ports, state);
        return { state, finished: true };
      }
      state.round += 1;
      const end = Math.min(total, state.thorough_next + batch);
      const points: Point[] = [];
      for (let i = state.thorough_next; i < end; i++) points.push({ [THOROUGH_INDEX]: i });
      state.trials.push(...(await evaluatePoints(plan, ports, state, points, hooks)));
      state.thorough_next = end;
      await storeFinished(ports, state);
      if (hooks.afterRound && (await hooks.afterRound(state)) === 'pause' && state.thorough_next < total) return { state, finished: false };
    }
    state.stop_reason = 'exhausted';
    await storeFinished(ports, state);
    return { state, finished: true };
  }

  const perRound = Math.max(1, plan.settings.candidates_per_round);
  const maxAttempts = 11 * perRound;
  // A fully pinned branch (no searched dimension) never asks: it has one candidate and no optimizer.
  const searched = plan.dimensions.length > 0;
  let opt: Optimizer | null = searched ? makeOptimizer(plan, state, ports) : null;
  const ask = async (n: number): Promise<Point[]> => {
    if (!opt) return [];
    if (!ports.ask) return opt.ask(n);
    const asked = await ports.ask(opt.state(), n);
    opt.adoptAsk(asked.state);
    return asked.points;
  };
  const successKeys = new Set(state.trials.filter(isFeasible).map((t) => t.key));

  while (state.round < plan.settings.max_rounds) {
    if (hooks.shouldStop?.()) {
      state.stop_reason = 'stopped';
      break;
    }
    state.round += 1;
    let successes = 0;
    let attempts = 0;
    let exhausted = false;
    while (successes < perRound && attempts < maxAttempts) {
      const k = Math.min(perRound - successes, maxAttempts - attempts);
      // A space with no searched dimension has exactly one candidate: ask it once, then it is exhausted.
      const points = !searched ? (trialCount(state) === 0 ? [{}] : []) : await ask(k);
      if (points.length === 0) {
        exhausted = true;
        break;
      }
      attempts += points.length;
      const recorded = await evaluatePoints(plan, ports, state, points, hooks);
      if (opt) tellAll(plan, opt, recorded);
      for (const t of recorded) {
        // A cache hit repeats an earlier trial, so it is never a new success (its key may be stored).
        if (isFeasible(t) && !t.cache_hit && !successKeys.has(t.key)) {
          successKeys.add(t.key);
          successes += 1;
        }
      }
      state.trials.push(...recorded);
      state.optimizer = opt ? opt.state() : null;
      if (hooks.shouldStop?.()) break;
    }
    if (hooks.shouldStop?.()) {
      state.stop_reason = 'stopped';
      break;
    }
    if (exhausted) {
      state.stop_reason = 'exhausted';
      break;
    }
    if (successes < perRound) {
      state.stop_reason = 'projection_stalled';
      break;
    }
    await storeFinished(ports, state);
    if (hooks.afterRound && state.round < plan.settings.max_rounds && (await hooks.afterRound(state)) === 'pause') {
      return { state, finished: false };
    }
  }
  if (!state.stop_reason) state.stop_reason = 'max_rounds';
  await storeFinished(ports, state);
  return { state, finished: true };
}

/** Best signed first-objective score after each trial (null until the first feasible one). */
export function convergence(plan: BranchStudyPlan, trials: readonly TrialRecord[]): (number | null)[] {
  const obj = plan.objectives[0].name;
  let best: number | null = null;
  return trials.map((t) => {
    if (isFeasible(t) && t.objectives) {
      const s = signedScore(obj, t.objectives[obj]);
      if (best === null || s > best) best = s;
    }
    return best;
  });
}
