// Sweeper core benchmark (issue "Sweeper core"): on three realistic spaces, the true optimum from
// `thorough`, then `rapid` (bayesian) vs `random` over 10 seeds — median best-found / optimum at
// budgets 16/32/64/128 and median trials to 99% of the optimum; plus a 128-trial pareto run's share
// of the exact front's hypervolume. Replays are memoized by candidate key (the simulator is
// deterministic), so each distinct candidate is simulated once per space.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { evaluateCandidate } from '../activities/evaluate.js';
import { parseConfigText } from '../src/config/load.js';
import type { SmartSearchConfig } from '../src/config/schema.js';
import { perfDataFingerprint } from '../src/hardware/perf-data-fingerprint.js';
import { REPLAY_RUNNER_CAPABILITIES } from '../src/replay/capabilities.js';
import { SIMULATOR_VERSION } from '../src/replay/report.js';
import { goalObjectives, OBJECTIVE_DIRECTION } from '../src/search/goal.js';
import { hypervolume, paretoFrontIndices } from '../src/search/pareto.js';
import { runSweepLocal } from '../src/search/runSweepLocal.js';
import type { EvalOutcome } from '../src/search/trial.js';
import type { SweepResult } from '../src/search/sweepResult.js';

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const BUDGETS = [16, 32, 64, 128];

const SPACES: Record<string, string> = {
  'dense agg (Llama-3.1-8B, H100, 16 GPUs)': `
search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  gpu_budget: 16
  deployment_mode: [agg]
  backend: [vllm, sglang, trtllm]
  agg_max_num_batched_tokens: [8192, 16384, 32768]
  agg_max_num_seqs: [256, 512, 1024]
  router_mode: [kv_router, round_robin]
  overlap_score_credit: [0.0, 1.0]
  prefill_load_scale: [0.5, 2.0]
  router_temperature: [0.0]
  planner_scaling_policy: [disabled]
workload: {isl: 2048, osl: 128, concurrency: 32, num_request_ratio: 2, shared_prefix_ratio: 0.5, num_prefix_groups: 4}
goal: {target: throughput_per_gpu}
`,
  'dense disagg (Llama-3.1-70B, H200, 16 GPUs)': `
search_space:
  model_name: meta-llama/Llama-3.1-70B-Instruct
  hardware_sku: h200_sxm
  gpu_budget: 16
  deployment_mode: [disagg]
  backend: [vllm, sglang]
  prefill_max_num_batched_tokens: [8192, 16384]
  prefill_max_num_seqs: [1, 4, 16]
  decode_max_num_seqs: [256, 512, 1024]
  router_mode: [round_robin]
  planner_scaling_policy: [disabled]
workload: {isl: 2048, osl: 128, concurrency: 32, num_request_ratio: 2}
goal: {target: throughput_per_gpu}
`,
  'MoE disagg (Qwen3-30B-A3B, H200, 8 GPUs)': `
search_space:
  model_name: Qwen/Qwen3-30B-A3B
  hardware_sku: h200_sxm
  gpu_budget: 8
  deployment_mode: [disagg]
  backend: [vllm, sglang]
  prefill_max_num_batched_tokens: [8192, 16384]
  prefill_max_num_seqs: [4, 16]
  decode_max_num_seqs: [256, 1024]
  router_mode: [round_robin]
  planner_scaling_policy: [disabled]
workload: {isl: 1024, osl: 128, concurrency: 32, num_request_ratio: 2}
goal: {target: throughput_per_gpu}
`,
};

function withSweep(yaml: string, sweep: string, goal?: string): SmartSearchConfig {
  const text = goal ? yaml.replace(/^goal:.*$/m, goal) : yaml;
  return parseConfigText(`${text}\nsweep: ${sweep}\n`, { sourceName: 'bench' });
}

function memoEvaluator(config: SmartSearchConfig, memo: Map<string, EvalOutcome>) {
  let replays = 0;
  return {
    simulatorVersion: SIMULATOR_VERSION,
    capabilities: REPLAY_RUNNER_CAPABILITIES,
    replays: () => replays,
    evaluate: async (cands: Parameters<typeof evaluateCandidate>[1][]) =>
      cands.map((m) => {
        const hit = memo.get(m.key);
        if (hit) return hit;
        replays += 1;
        const out = evaluateCandidate({ config, traceSha256: null }, m);
        memo.set(m.key, out);
        return out;
      }),
  };
}

/** Best signed first-objective score after each trial, in trial order across branches. */
function bestCurve(r: SweepResult): number[] {
  const obj = r.objectives[0];
  const sign = obj.direction === 'min' ? -1 : 1;
  let best = -Infinity;
  return r.candidates.map((c) => {
    if (c.status === 'feasible' && c.objectives) best = Math.max(best, sign * c.objectives[obj.name]);
    return best;
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Optional on-disk memo of replay outcomes (env SPICA_BENCH_MEMO=<dir>), for iterating on the optimizer
 * without re-simulating. Files are keyed by the simulator version and the perf data fingerprint, so a
 * recalibration starts a new memo; a simulator code change without a version bump is not detected.
 */
function loadMemo(name: string): { memo: Map<string, EvalOutcome>; save: () => void } {
  const dir = process.env.SPICA_BENCH_MEMO;
  const version = `${SIMULATOR_VERSION}_${perfDataFingerprint().slice(0, 12)}`;
  const file = dir ? join(dir, `${`${name}_${version}`.replace(/[^A-Za-z0-9]+/g, '_')}.json`) : null;
  const memo = new Map<string, EvalOutcome>(file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as [string, EvalOutcome][]) : []);
  return {
    memo,
    save: () => {
      if (!file) return;
      mkdirSync(dir!, { recursive: true });
      writeFileSync(file, JSON.stringify([...memo]));
    },
  };
}

/** Expected trials to first hit one of `good` marked items among `total` when sampling without replacement. */
function expectedRandomTrials(total: number, good: number): number {
  return (total + 1) / (good + 1);
}

async function singleObjective(name: string, yaml: string): Promise<string> {
  const { memo, save } = loadMemo(name);
  const thoroughCfg = withSweep(yaml, '{policy: thorough, parallel_evals: 16}');
  const t0 = performance.now();
  const ev = memoEvaluator(thoroughCfg, memo);
  const exact = await runSweepLocal(thoroughCfg, { evaluator: ev });
  const thoroughMs = performance.now() - t0;
  save();
  const optimum = Math.max(...bestCurve(exact));
  const byConfig = new Map<string, number>();
  const obj0 = exact.objectives[0];
  for (const c of exact.candidates)
    if (c.status === 'feasible' && c.objectives) byConfig.set(JSON.stringify(c.config), (obj0.direction === 'min' ? -1 : 1) * c.objectives[obj0.name]);
  const distinct = new Set(exact.candidates.map((c) => JSON.stringify(c.config))).size;
  const near = [...byConfig.values()].filter((v) => v >= 0.99 * optimum).length;
  console.log(`\n${name}: ${distinct} distinct candidates, ${ev.replays()} replays, thorough ${(thoroughMs / 1000).toFixed(1)} s, optimum ${optimum.toFixed(2)}`);

  const rows: string[] = [];
  const toReach: Record<string, number[]> = {};
  const replaysToReach: Record<string, number[]> = {};
  for (const algorithm of ['bayesian', 'random'] as const) {
    const fractions: number[][] = BUDGETS.map(() => []);
    toReach[algorithm] = [];
    replaysToReach[algorithm] = [];
    const ta = performance.now();
    for (const seed of SEEDS) {
      const cfg = withSweep(yaml, `{policy: rapid, algorithm: ${algorithm}, seed: ${seed}, max_rounds: 8, candidates_per_round: 16, parallel_evals: 16}`);
      const r = await runSweepLocal(cfg, { evaluator: memoEvaluator(cfg, memo) });
      const curve = bestCurve(r);
      BUDGETS.forEach((b, i) => fractions[i].push(Math.max(0, curve[Math.min(b, curve.length) - 1]) / optimum));
      const hit = curve.findIndex((v) => v >= 0.99 * optimum);
      toReach[algorithm].push(hit < 0 ? Infinity : hit + 1);
      // Replays (distinct candidates simulated) until then: repeats are answered from the run-local cache.
      replaysToReach[algorithm].push(hit < 0 ? Infinity : new Set(r.candidates.slice(0, hit + 1).map((c) => JSON.stringify(c.config))).size);
    }
    const secs = (performance.now() - ta) / 1000 / SEEDS.length;
    rows.push(
      `  ${algorithm.padEnd(8)} best/optimum at ${BUDGETS.map((b, i) => `${b}: ${median(fractions[i]).toFixed(3)}`).join('  ')}   trials to 99%: median ${median(toReach[algorithm])} (${median(replaysToReach[algorithm])} distinct replays)   (${secs.toFixed(1)} s/run)`,
    );
  }
  console.log(rows.join('\n'));
  // Random's trials-to-99% is often beyond the largest budget: its expectation follows from the exact
  // enumeration (sampling distinct candidates without replacement).
  const randomExpected = expectedRandomTrials(distinct, near);
  const randomMedian = median(toReach.random);
  const randomRef = Number.isFinite(randomMedian) ? randomMedian : randomExpected;
  const ratio = median(toReach.bayesian) / randomRef;
  console.log(
    `  ${near} of ${distinct} candidates are within 1% of the optimum: random needs ${randomExpected.toFixed(0)} trials in expectation` +
      `\n  ratio rapid/random trials-to-99%: ${Number.isFinite(ratio) ? ratio.toFixed(2) : `rapid did not reach 99% within ${BUDGETS.at(-1)}`} (target ≤ 0.33)` +
      `; counting distinct replays: ${Number.isFinite(median(replaysToReach.bayesian)) ? (median(replaysToReach.bayesian) / randomRef).toFixed(2) : '-'}`,
  );
  const met = Number.isFinite(ratio) && ratio <= 0.33;
  return `${name}: rapid ${median(toReach.bayesian)} vs random ${randomRef.toFixed(0)} trials to 99% → ratio ${Number.isFinite(ratio) ? ratio.toFixed(2) : '∞'} ${met ? 'MET' : 'MISSED'} (≤ 0.33)`;
}

async function pareto(name: string, yaml: string): Promise<void> {
  const { memo, save } = loadMemo(`${name} pareto`);
  const goal = 'goal: {target: pareto, pareto_objectives: [throughput_per_gpu, throughput_per_user]}';
  const exactCfg = withSweep(yaml, '{policy: thorough, parallel_evals: 16}', goal);
  const exact = await runSweepLocal(exactCfg, { evaluator: memoEvaluator(exactCfg, memo) });
  save();
  const names = goalObjectives(exactCfg.goal);
  const dirs = names.map((n) => OBJECTIVE_DIRECTION[n]);
  const vec = (r: SweepResult) => r.candidates.filter((c) => c.status === 'feasible' && c.objectives).map((c) => names.map((n) => c.objectives![n]));
  const ref = names.map(() => 0);
  const exactFront = paretoFrontIndices(vec(exact), dirs).map((i) => vec(exact)[i]);
  const hvExact = hypervolume(exactFront, ref, dirs);
  const shares: number[] = [];
  for (const seed of SEEDS.slice(0, 5)) {
    const cfg = withSweep(yaml, `{policy: rapid, seed: ${seed}, max_rounds: 8, candidates_per_round: 16, parallel_evals: 16}`, goal);
    const r = await runSweepLocal(cfg, { evaluator: memoEvaluator(cfg, memo) });
    const pts = vec(r);
    shares.push(hypervolume(paretoFrontIndices(pts, dirs).map((i) => pts[i]), ref, dirs) / hvExact);
  }
  console.log(`\n${name} pareto: exact front ${exactFront.length} points; 128-trial rapid covers median ${(median(shares) * 100).toFixed(1)}% of its hypervolume (target ≥ 95%)`);
}

export async function run(): Promise<void> {
  const summary: string[] = [];
  for (const [name, yaml] of Object.entries(SPACES)) summary.push(await singleObjective(name, yaml));
  console.log(`\nsummary (median over ${SEEDS.length} seeds):\n${summary.map((l) => `  ${l}`).join('\n')}`);
  const [moeName, moeYaml] = Object.entries(SPACES)[2];
  await pareto(moeName, moeYaml);
}
