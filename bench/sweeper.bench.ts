// Sweeper benchmark (issues "Sweeper core" and "Optimizer: ahead of GP-based samplers"): on each
// problem of bench/sweeper-problems.ts, the exact optimum (or Pareto front) from `thorough` over every
// candidate, then `rapid` (bayesian) beside measured random search over 10 seeds, every figure read at
// fixed budgets of 32 / 64 / 128 trials (batches of 16). Single objective: median best/optimum, median
// trials to 99 % of the optimum, seeds at 99 % by 64 and by 128, and the ratio of rapid's median to
// random's (measured: random runs on until it reaches 99 %, up to a cap) beside the analytic
// expectation for sampling distinct candidates uniformly. Pareto: median share of the exact front's
// hypervolume. Replays come from the on-disk memo (bench/sweeper-memo.ts): the first run enumerates.
// Several branches (agg + disagg) run side by side as in a real sweep: their trials are interleaved a
// batch at a time, so a budget of 128 is 64 trials per branch.
import { goalObjectives, OBJECTIVE_DIRECTION } from '../src/search/goal.js';
import { hypervolume, paretoFrontIndices } from '../src/search/pareto.js';
import { runSweepLocal } from '../src/search/runSweepLocal.js';
import type { CandidateRow, SweepResult } from '../src/search/sweepResult.js';
import { analyticPrior } from '../activities/analytic-prior.js';
import { enumerateProblem } from './sweeper-exact.js';
import { problemConfig, type ReplayMemo } from './sweeper-memo.js';
import { BENCH_PROBLEMS, type BenchProblem } from './sweeper-problems.js';

/** 10 seeds; SPICA_BENCH_SEEDS=n runs the first n (a quick look while iterating). */
const SEEDS = Array.from({ length: Number(process.env.SPICA_BENCH_SEEDS ?? 10) }, (_, i) => i + 1);
const BUDGETS = [32, 64, 128];
const BATCH = 16;
/** Random search runs on until 99 % (measured trials-to-99 %), at most this many trials. */
const RANDOM_CAP = 4096;
const RANDOM_BATCH = 256;
/** Rapid runs past the largest budget (trials in all, across branches) so that its trials to 99 % are measured beyond it too. */
const RAPID_TRIALS = 192;
type Algorithm = 'bayesian' | 'random';

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Best signed first-objective score after each trial (−∞ until the first feasible one). */
function bestCurve(rows: readonly CandidateRow[], obj: { name: string; direction: 'max' | 'min' }): number[] {
  const sign = obj.direction === 'min' ? -1 : 1;
  let best = -Infinity;
  return rows.map((c) => {
    if (c.status === 'feasible' && c.objectives) best = Math.max(best, sign * c.objectives[obj.name]);
    return best;
  });
}

/**
 * One rapid sweep, `trials` trials per branch (stopped there), its branches side by side: each branch
 * runs as a sweep of its own (branches are independent studies with the same seed, so this is the
 * sweep's own trial sequence) and their trials are interleaved a batch at a time. Random search does
 * not adapt, so it asks in batches of RANDOM_BATCH (the same draws, far fewer round trips through the
 * study loop's state).
 */
async function run1(problem: BenchProblem, memo: ReplayMemo, modes: string[], algorithm: Algorithm, seed: number, trials: number): Promise<CandidateRow[]> {
  const batch = algorithm === 'random' ? RANDOM_BATCH : BATCH;
  const lists: CandidateRow[][] = [];
  for (const mode of modes) {
    const cfg = problemConfig(
      problem,
      `{policy: rapid, algorithm: ${algorithm}, seed: ${seed}, max_rounds: 1000, candidates_per_round: ${batch}, parallel_evals: ${batch}}`,
      modes.length > 1 ? mode : undefined,
    );
    let done = 0;
    const r = await runSweepLocal(cfg, {
      evaluator: memo.evaluator(cfg),
      traceRequests: memo.trace.traceRequests,
      onProgress: (_m, n) => (done = n),
      shouldStop: () => done >= trials,
      // What a user's sweep has (spica sweep --local and the ask activity build the same prior).
      prior: (branch) => analyticPrior(cfg, branch.materializer),
    });
    lists.push(r.candidates.slice(0, trials));
  }
  const out: CandidateRow[] = [];
  for (let start = 0; lists.some((l) => l.length > start); start += BATCH) for (const l of lists) out.push(...l.slice(start, start + BATCH));
  return out;
}

interface Row {
  problem: string;
  algorithm: Algorithm;
  /** Median best/optimum (single) or hypervolume share (pareto) per budget. */
  atBudget: number[];
  /** Single objective only. */
  toReach?: number[];
  cpuPerRun: number;
}

const fmtTrials = (t: number, cap: number): string => (Number.isFinite(t) ? String(t) : `>${cap}`);

async function singleObjective(problem: BenchProblem): Promise<{ rows: Row[]; line: string; met: boolean }> {
  const t0 = process.cpuUsage();
  const exact = await enumerateProblem(problem);
  const { memo } = exact;
  const all = bestCurve(exact.result.candidates, exact.result.objectives[0]);
  const optimum = all.at(-1)!;
  const obj0 = exact.result.objectives[0];
  const score = new Map<string, number>();
  const distinctKeys = new Set<string>();
  for (const c of exact.result.candidates) {
    const key = JSON.stringify(c.config);
    distinctKeys.add(key);
    if (c.status === 'feasible' && c.objectives) score.set(key, (obj0.direction === 'min' ? -1 : 1) * c.objectives[obj0.name]);
  }
  const distinct = distinctKeys.size;
  const near = [...score.values()].filter((v) => v >= 0.99 * optimum).length;
  const best = exact.result.candidates.find((c) => score.get(JSON.stringify(c.config)) === optimum)!;
  const modes = [...new Set(exact.result.candidates.map((c) => c.branch))];
  const branches = modes.length;
  // Sampling distinct candidates uniformly without replacement: expected draws to the first near-optimal one.
  const expected = (distinct + 1) / (near + 1);
  console.log(
    `\n${problem.name}: ${distinct} distinct candidates (${score.size} feasible), optimum ${optimum.toFixed(2)} at ${best.used_gpus} GPUs ` +
      `(${best.branch}, ${best.config.backend}); ${near} within 1 % → random needs ${expected.toFixed(0)} trials in expectation` +
      (exact.replays > 0 ? `; enumerated now: ${exact.replays} replays, ${(exact.cpuMs / 60000).toFixed(1)} min CPU` : '; from the memo'),
  );
  const rows: Row[] = [];
  const toReach: Record<Algorithm, number[]> = { bayesian: [], random: [] };
  for (const algorithm of ['bayesian', 'random'] as const) {
    const fractions: number[][] = BUDGETS.map(() => []);
    const c0 = process.cpuUsage();
    const perBranch = Math.ceil((algorithm === 'bayesian' ? RAPID_TRIALS : RANDOM_CAP) / branches);
    for (const seed of SEEDS) {
      const curve = bestCurve(await run1(problem, memo, modes, algorithm, seed, perBranch), obj0);
      BUDGETS.forEach((b, i) => fractions[i].push(Math.max(0, curve[Math.min(b, curve.length) - 1]) / optimum));
      const hit = curve.findIndex((v) => v >= 0.99 * optimum);
      toReach[algorithm].push(hit < 0 ? Infinity : hit + 1);
    }
    const c = process.cpuUsage(c0);
    rows.push({
      problem: problem.name,
      algorithm,
      atBudget: fractions.map(median),
      toReach: toReach[algorithm],
      cpuPerRun: (c.user + c.system) / 1000 / SEEDS.length,
    });
  }
  memo.save();
  const rapid = median(toReach.bayesian);
  const random = median(toReach.random);
  // Random censored at its cap: the ratio is an upper bound.
  const ratio = rapid / (Number.isFinite(random) ? random : RANDOM_CAP);
  const byCap = toReach.bayesian.filter((t) => t <= BUDGETS.at(-1)!).length;
  const met = problem.harder ? ratio <= 1 / 3 : true;
  const spent = process.cpuUsage(t0);
  console.log(
    `  rapid/random trials to 99 %: ${fmtTrials(rapid, RAPID_TRIALS)} / ${Number.isFinite(random) ? random : `>${RANDOM_CAP}`} = ${Number.isFinite(ratio) ? `${Number.isFinite(random) ? '' : '< '}${ratio.toFixed(2)}` : '-'}` +
      ` (analytic random ${expected.toFixed(0)}: ${(rapid / expected).toFixed(2)})` +
      `; rapid at 99 % by 128 on ${byCap}/${SEEDS.length} seeds${problem.harder ? ` — target ≤ 0.33 ${met ? 'MET' : 'MISSED'}` : ''}` +
      `  [${((spent.user + spent.system) / 1e6).toFixed(0)} s CPU]`,
  );
  return { rows, line: `${problem.name}: ratio ${Number.isFinite(ratio) ? ratio.toFixed(2) : '∞'}`, met };
}

async function paretoProblem(problem: BenchProblem): Promise<Row[]> {
  const exact = await enumerateProblem(problem);
  const { memo, result } = exact;
  const names = goalObjectives(problemConfig(problem, '{policy: thorough}').goal);
  const dirs = names.map((n) => OBJECTIVE_DIRECTION[n]);
  const vec = (rows: readonly CandidateRow[]) => rows.filter((c) => c.status === 'feasible' && c.objectives).map((c) => names.map((n) => c.objectives![n]));
  const ref = names.map(() => 0);
  const hv = (pts: number[][]) => (pts.length ? hypervolume(paretoFrontIndices(pts, dirs).map((i) => pts[i]), ref, dirs) : 0);
  const exactPts = vec(result.candidates);
  const modes = [...new Set(result.candidates.map((c) => c.branch))];
  const hvExact = hv(exactPts);
  console.log(`\n${problem.name}: ${result.candidates.length} candidates, exact front ${paretoFrontIndices(exactPts, dirs).length} points`);
  const rows: Row[] = [];
  for (const algorithm of ['bayesian', 'random'] as const) {
    const shares: number[][] = BUDGETS.map(() => []);
    const c0 = process.cpuUsage();
    for (const seed of SEEDS) {
      const trials = await run1(problem, memo, modes, algorithm, seed, BUDGETS.at(-1)!);
      BUDGETS.forEach((b, i) => shares[i].push(hv(vec(trials.slice(0, b))) / hvExact));
    }
    const c = process.cpuUsage(c0);
    rows.push({ problem: problem.name, algorithm, atBudget: shares.map(median), cpuPerRun: (c.user + c.system) / 1000 / SEEDS.length });
  }
  memo.save();
  return rows;
}

function table(rows: Row[]): string {
  const head = ['problem', 'algorithm', ...BUDGETS.map((b) => `@${b}`), 'trials to 99 % (median)', '≥99 % by 64 / 128', 'CPU/run'];
  const body = rows.map((r) => [
    r.problem,
    r.algorithm === 'bayesian' ? 'rapid' : 'random',
    ...r.atBudget.map((v) => `${(v * 100).toFixed(1)}%`),
    r.toReach ? fmtTrials(median(r.toReach), r.algorithm === 'random' ? RANDOM_CAP : RAPID_TRIALS) : 'hv share',
    r.toReach ? `${r.toReach.filter((t) => t <= 64).length} / ${r.toReach.filter((t) => t <= 128).length}` : '',
    `${(r.cpuPerRun / 1000).toFixed(2)} s`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(fmt)].join('\n');
}

export async function run(): Promise<void> {
  const wanted = process.env.SPICA_BENCH_PROBLEMS?.split(',').map((s) => s.trim()).filter(Boolean);
  const rows: Row[] = [];
  const lines: string[] = [];
  for (const problem of BENCH_PROBLEMS) {
    if (wanted && !wanted.some((w) => problem.name.includes(w))) continue;
    if (problem.kind === 'pareto') rows.push(...(await paretoProblem(problem)));
    else {
      const out = await singleObjective(problem);
      rows.push(...out.rows);
      if (problem.harder) lines.push(`${out.line} ${out.met ? 'MET' : 'MISSED'} (≤ 0.33 of measured random)`);
    }
  }
  console.log(`\nmedian over ${SEEDS.length} seeds, batches of ${BATCH}; @B = best/optimum (pareto: hypervolume share of the exact front) after B trials`);
  console.log(table(rows));
  if (lines.length) console.log(`\nharder problems, rapid vs measured random trials to 99 %:\n${lines.map((l) => `  ${l}`).join('\n')}`);
}
