// Ranking by (−score, used_gpus) and merging branch studies into a SweepResult (dynamo-facts §3, §7).
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { assembleSweepResult } from '../../src/search/assembleResult.js';
import { rankCandidates } from '../../src/search/rank.js';
import { initialStudyState } from '../../src/search/study/branchStudy.js';
import type { BranchStudyPlan } from '../../src/search/study/plan.js';
import type { TrialRecord } from '../../src/search/study/trialRecord.js';
import { SweepResultSchema } from '../../src/search/sweepResult.js';

describe('rankCandidates', () => {
  it('sorts by score (direction-aware), then fewer GPUs, then id', () => {
    const items = [
      { id: 'c', used_gpus: 8, objectives: { throughput: 100 } },
      { id: 'a', used_gpus: 8, objectives: { throughput: 120 } },
      { id: 'd', used_gpus: 4, objectives: { throughput: 100 } },
      { id: 'b', used_gpus: 4, objectives: { throughput: 100 } },
    ];
    expect(rankCandidates(items, 'throughput').map((x) => x.id)).toEqual(['a', 'b', 'd', 'c']);
    const lat = items.map((x) => ({ ...x, objectives: { e2e_latency: x.objectives.throughput } }));
    expect(rankCandidates(lat, 'e2e_latency').map((x) => x.id)).toEqual(['b', 'd', 'c', 'a']);
  });
});

const cfgText = (goal: string) => `
search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  gpu_budget: 8
  deployment_mode: [disagg, agg]
workload: {isl: 128, osl: 16, concurrency: 4, num_request_ratio: 2}
goal: ${goal}
`;

function trial(n: number, status: TrialRecord['status'], objectives: Record<string, number> | null, gpus: number, mode: 'agg' | 'disagg'): TrialRecord {
  return {
    n,
    round: 1,
    point: { x: n },
    key: `k${mode}${n}`,
    candidate: {
      deployment_mode: mode,
      backend: 'vllm',
      engine: { tag: n },
      parallel_config: { tp: gpus, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 1, replicas: 1 },
      adapters: {},
    },
    used_gpus: gpus,
    concurrency: 4,
    status,
    reason_category: status === 'feasible' ? null : 'kv_capacity',
    reason: status === 'feasible' ? null : 'no KV budget',
    objectives,
    metrics: objectives ? { output_throughput_tok_s: 1 } : null,
    projection: null,
    cache_hit: false,
  };
}

function plan(mode: 'agg' | 'disagg', objectives: BranchStudyPlan['objectives']): BranchStudyPlan {
  return {
    deployment_mode: mode,
    backends: ['vllm'],
    dimensions: [],
    initial_point: {},
    thorough_size: null,
    objectives,
    goal: { target: 'throughput' },
    settings: { max_rounds: 1, candidates_per_round: 1, parallel_evals: 1, policy: 'rapid', algorithm: 'bayesian', seed: 0 },
  };
}

describe('assembleSweepResult', () => {
  it('merges branches: ids across branches, counts by status, top_n ranked across branches', () => {
    const config = parseConfigText(cfgText('{target: throughput}'));
    const obj = [{ name: 'throughput' as const, direction: 'max' as const }];
    const r = assembleSweepResult({
      config,
      config_hash: 'h',
      sweep_id: null,
      simulator_version: 'v',
      branches: [
        { plan: plan('disagg', obj), state: { ...initialStudyState(), round: 1, stop_reason: 'max_rounds', trials: [trial(1, 'feasible', { throughput: 50 }, 4, 'disagg'), trial(2, 'infeasible', null, 8, 'disagg')] } },
        { plan: plan('agg', obj), state: { ...initialStudyState(), round: 1, stop_reason: 'max_rounds', trials: [trial(1, 'feasible', { throughput: 80 }, 8, 'agg'), trial(2, 'feasible', { throughput: 50 }, 2, 'agg')] } },
      ],
      load_predictor: null,
      warnings: [],
    });
    expect(SweepResultSchema.parse(r)).toEqual(r);
    expect(r.candidates.map((c) => c.id)).toEqual(['candidate-000001', 'candidate-000002', 'candidate-000003', 'candidate-000004']);
    expect(r.counts).toMatchObject({ evaluated: 4, feasible: 3, infeasible: 1 });
    expect(r.views).toEqual({ top_n: ['candidate-000003', 'candidate-000004', 'candidate-000001'] });
    expect(r.branches.map((b) => b.best_so_far)).toEqual([[50, 50], [80, 80]]);
  });

  it('under pareto, the view is the exact non-dominated set sorted by the last objective', () => {
    const config = parseConfigText(cfgText('{target: pareto}'));
    const obj = [
      { name: 'throughput_per_gpu' as const, direction: 'max' as const },
      { name: 'throughput_per_user' as const, direction: 'max' as const },
    ];
    const pts: [number, number][] = [[10, 1], [8, 3], [8, 3], [5, 5], [4, 4], [10, 0.5]];
    const trials = pts.map(([a, b], i) => trial(i + 1, 'feasible', { throughput_per_gpu: a, throughput_per_user: b }, 2, 'agg'));
    trials[2] = { ...trials[2], candidate: trials[1].candidate, key: trials[1].key, cache_hit: true };
    const r = assembleSweepResult({
      config,
      config_hash: 'h',
      sweep_id: 's',
      simulator_version: 'v',
      branches: [{ plan: plan('agg', obj), state: { ...initialStudyState(), trials, stop_reason: 'exhausted' } }],
      load_predictor: null,
      warnings: [],
    });
    // (8,3) appears twice but is one candidate; (4,4) and (10,0.5) are dominated.
    expect(r.views).toEqual({ pareto_front: ['candidate-000001', 'candidate-000002', 'candidate-000004'] });
    expect(r.counts.cache_hits).toBe(1);
  });
});
