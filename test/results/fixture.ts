// A realistic SweepResult built in code: agg + disagg branches, all three backends, KV and
// round-robin routers, planner on/off, feasible rows and every kind of rejection.
import { referencePoint } from '../../src/search/assembleResult.js';
import { hypervolume, paretoFrontIndices } from '../../src/search/pareto.js';
import { rankCandidates } from '../../src/search/rank.js';
import { candidateId, SweepResultSchema, type CandidateRow, type SweepResult } from '../../src/search/sweepResult.js';
import { configFromObject } from '../../src/config/load.js';
import { deploymentRecordOf, sweptReplaySpec } from '../../src/search/deploymentRecord.js';
import { mulberry32 as prng } from '../support/mulberry32.js';

type Group = { tp: number; pp: number; attention_dp: number; moe_tp: number; moe_ep: number; replicas: number };
const g = (tp: number, replicas: number, extra: Partial<Group> = {}): Group => ({ tp, pp: 1, attention_dp: 1, moe_tp: tp, moe_ep: 1, replicas, ...extra });


const AGG_BACKENDS = ['vllm', 'sglang', 'trtllm'] as const;
const DISAGG_BACKENDS = ['vllm', 'sglang'] as const;
const POLICIES = ['disabled', 'load_180_10', 'hybrid_180_5', '{"enable_load_scaling":true,"enable_throughput_scaling":false,"load_adjustment_interval_seconds":7,"throughput_adjustment_interval_seconds":60}'];

interface Spec {
  mode: 'agg' | 'disagg';
  backend: 'vllm' | 'sglang' | 'trtllm';
  pc: Group | { prefill: Group; decode: Group };
  engine: Record<string, number | boolean>;
  router: Record<string, unknown>;
  planner: Record<string, unknown>;
  point: Record<string, string | number | boolean>;
  status: CandidateRow['status'];
  reason_category: string | null;
  reason: string | null;
}

function gpus(pc: Spec['pc']): number {
  const w = (x: Group) => x.tp * x.pp * x.attention_dp * x.replicas;
  return 'prefill' in pc ? w(pc.prefill) + w(pc.decode) : w(pc);
}

function specs(): Spec[] {
  const rand = prng(7);
  const out: Spec[] = [];
  const seqs = [256, 512, 1024];
  const toks = [8192, 16384, 32768];
  for (let i = 0; i < 30; i++) {
    const backend = AGG_BACKENDS[i % 3];
    const tp = [1, 2, 4, 8][i % 4];
    const pc = i % 5 === 4 ? g(tp, Math.max(1, 8 / tp), { attention_dp: 2, moe_ep: tp * 2, moe_tp: 1 }) : g(tp, Math.max(1, 8 / tp));
    const kv = i % 2 === 0;
    const policy = POLICIES[i % 4];
    const engine = {
      agg_max_num_seqs: seqs[i % 3],
      agg_max_num_batched_tokens: toks[(i >> 1) % 3],
      agg_block_size: 64,
      agg_gpu_memory_utilization: 0.9,
      agg_enable_prefix_caching: i % 7 !== 0,
      ...(i === 3 ? { aic_nextn: 2 } : {}),
    };
    const router = kv
      ? { router_mode: 'kv_router', overlap_score_credit: [0, 0.5, 1][i % 3], prefill_load_scale: [0.25, 2, 32][(i >> 1) % 3], router_temperature: [0, 0.2, 0.5][i % 3] }
      : { router_mode: 'round_robin' };
    const planner = { planner_scaling_policy: policy, planner_fpm_sampling: ['default', 'fine'][i % 2], planner_load_sensitivity: ['aggressive', 'default', 'conservative'][i % 3] };
    const status: CandidateRow['status'] = i % 9 === 8 ? 'infeasible' : i === 13 ? 'timed_out' : i === 17 ? 'failed' : 'feasible';
    out.push({
      mode: 'agg',
      backend,
      pc,
      engine,
      router,
      planner,
      point: {
        backend,
        agg_max_num_seqs: engine.agg_max_num_seqs,
        agg_max_num_batched_tokens: engine.agg_max_num_batched_tokens,
        'adapter::dynamo.router::router_mode': router.router_mode as string,
        'adapter::dynamo.planner::scaling_policy': policy,
        agg_num_gpus_per_engine_target: tp * (1 + rand()),
        kv_load_ratio: Math.round(rand() * 1000) / 1000,
      },
      status,
      reason_category: status === 'infeasible' ? (i % 2 ? 'kv_capacity' : 'gpu_budget') : status === 'timed_out' ? 'runtime_timeout' : status === 'failed' ? 'replay_runtime' : null,
      reason:
        status === 'infeasible'
          ? i % 2
            ? `KV cache too small: ${1000 + i} tokens per rank < max_seq_len 4096`
            : `uses ${gpus(pc) + 8} GPUs > budget 16`
          : status === 'timed_out'
            ? 'exceed runtime: replay > 600s'
            : status === 'failed'
              ? 'replay crashed: "NaN" in <pass> time & co'
              : null,
    });
  }
  for (let i = 0; i < 14; i++) {
    const backend = DISAGG_BACKENDS[i % 2];
    const pc = { prefill: g([1, 2][i % 2], 1 + (i % 3)), decode: g([2, 4][(i >> 1) % 2], 1 + (i % 2), i % 4 === 3 ? { attention_dp: 2, moe_ep: 4, moe_tp: 1, tp: 2 } : {}) };
    const engine = {
      prefill_max_num_seqs: [1, 8, 64][i % 3],
      prefill_max_num_batched_tokens: toks[i % 3],
      prefill_block_size: 64,
      prefill_gpu_memory_utilization: 0.9,
      prefill_enable_prefix_caching: true,
      decode_max_num_seqs: seqs[(i >> 1) % 3],
      decode_max_num_batched_tokens: 8192,
      decode_block_size: 64,
      decode_gpu_memory_utilization: 0.85,
      decode_enable_prefix_caching: false,
    };
    const router = { mode: i % 3 === 0 ? 'round_robin' : 'kv_router', overlap_score_credit: 1, prefill_load_scale: [1, 4][i % 2], temperature: 0 };
    const policy = POLICIES[(i + 1) % 4];
    const status: CandidateRow['status'] = i === 5 ? 'unsupported' : i === 11 ? 'infeasible' : 'feasible';
    out.push({
      mode: 'disagg',
      backend,
      pc,
      engine,
      router,
      planner: { planner_scaling_policy: policy, planner_fpm_sampling: 'large', planner_load_sensitivity: 'default', load_predictor: 'kalman_default_log1p', min_endpoint: 2 },
      point: {
        backend,
        prefill_max_num_seqs: engine.prefill_max_num_seqs,
        decode_max_num_seqs: engine.decode_max_num_seqs,
        'adapter::dynamo.router::router_mode': router.mode,
        'adapter::dynamo.planner::scaling_policy': policy,
        prefill_gpu_share: Math.round(rand() * 100) / 100,
        kv_load_ratio: Math.round(rand() * 1000) / 1000,
      },
      status,
      reason_category: status === 'unsupported' ? 'unsupported_topology' : status === 'infeasible' ? 'sla_constraint' : null,
      reason: status === 'unsupported' ? 'sglang cannot run this disagg topology' : status === 'infeasible' ? 'mean TTFT 2400.0 ms exceeds SLA 2000 ms' : null,
    });
  }
  return out;
}

function metricsFor(s: Spec, rand: () => number): Record<string, number> {
  const used = gpus(s.pc);
  const perUser = 20 + rand() * 180;
  const perGpu = 4000 / (1 + perUser / 60) * (0.6 + rand() * 0.6);
  const avgGpu = used * (0.8 + rand() * 0.2);
  const duration = 300_000 + rand() * 100_000;
  const ttft = 80 + rand() * 2000;
  const tpot = 1000 / perUser;
  return {
    output_throughput_tok_s: perGpu * avgGpu,
    mean_output_token_throughput_per_user: perUser,
    mean_ttft_ms: ttft,
    p90_ttft_ms: ttft * 1.8,
    mean_tpot_ms: tpot,
    p90_tpot_ms: tpot * 1.3,
    mean_e2e_latency_ms: ttft + tpot * 512,
    p90_e2e_latency_ms: (ttft + tpot * 512) * 1.4,
    goodput_output_throughput_tok_s: perGpu * avgGpu * 0.8,
    avg_gpu: avgGpu,
    gpu_hours: (avgGpu * duration) / 3_600_000,
    duration_ms: duration,
  };
}

export function makeSweepResult(kind: 'pareto' | 'single'): SweepResult {
  const rand = prng(kind === 'pareto' ? 11 : 13);
  const objectives =
    kind === 'pareto'
      ? [
          { name: 'throughput_per_gpu', direction: 'max' as const },
          { name: 'throughput_per_user', direction: 'max' as const },
        ]
      : [{ name: 'throughput_per_gpu', direction: 'max' as const }];
  const goal = kind === 'pareto' ? { target: 'pareto', pareto_objectives: ['throughput_per_gpu', 'throughput_per_user'] } : { target: 'goodput_per_gpu', sla: { ttft_ms: 2000, itl_ms: 40 } };
  const workload = { isl: 4000, osl: 512, num_request_ratio: 10, kv_load_ratio: kind === 'pareto' ? [0.05, 1] : 0.8, shared_prefix_ratio: 0.5 };
  const config = configFromObject({ search_space: { model_name: 'Qwen/Qwen3-30B-A3B', hardware_sku: 'h200_sxm', gpu_budget: 16, deployment_mode: ['agg', 'disagg'], backend: ['vllm', 'sglang', 'trtllm'] }, workload, goal });
  const rows: CandidateRow[] = specs().map((s, i) => {
    const feasible = s.status === 'feasible';
    const candidate = {
      deployment_mode: s.mode,
      backend: s.backend,
      engine: s.engine,
      parallel_config: s.pc,
      adapters: { 'dynamo.router': s.router, 'dynamo.planner': s.planner },
      ...(kind === 'pareto' ? { kv_load_ratio: s.point.kv_load_ratio as number } : {}),
    };
    const metrics = feasible || s.status === 'infeasible' ? metricsFor(s, rand) : null;
    const objs = feasible && metrics ? Object.fromEntries(objectives.map((o) => [o.name, o.name === 'throughput_per_gpu' ? metrics.output_throughput_tok_s / metrics.avg_gpu : metrics.mean_output_token_throughput_per_user])) : null;
    return {
      id: candidateId(i + 1),
      branch: s.mode,
      round: Math.floor(i / 6) + 1,
      status: s.status,
      reason_category: s.reason_category,
      reason: s.reason,
      config: candidate,
      used_gpus: gpus(s.pc),
      concurrency: feasible ? 64 + i : null,
      score: objs ? objs[objectives[0].name] : null,
      objectives: objs,
      metrics,
      spica_projection:
        i % 4 === 0
          ? { requested: { agg_num_gpus_per_engine_target: 3.2, agg_attention_mode: 'tp' }, actual: { agg_num_gpus_per_engine_target: 4, agg_attention_mode: 'tp' }, distance: 0.04, mode_projected: false, parallel_config: s.pc }
          : null,
      point: s.point,
      cache_hit: i % 10 === 9,
      deployment: feasible ? deploymentRecordOf(sweptReplaySpec(config, candidate, 64 + i)) : null,
    };
  });
  const feasible = rows.filter((r) => r.status === 'feasible');
  const views =
    kind === 'pareto'
      ? { pareto_front: paretoFrontIndices(feasible.map((r) => objectives.map((o) => r.objectives![o.name])), objectives.map((o) => o.direction)).map((i) => feasible[i].id) }
      : { top_n: rankCandidates(feasible.map((r) => ({ id: r.id, used_gpus: r.used_gpus, objectives: r.objectives! })), 'throughput_per_gpu').map((r) => r.id) };
  const bestSoFar = (mode: 'agg' | 'disagg') => {
    let best: number | null = null;
    return rows
      .filter((r) => r.branch === mode)
      .map((r) => {
        if (r.score !== null) best = best === null ? r.score : Math.max(best, r.score);
        return best;
      });
  };
  const count = (s: CandidateRow['status']) => rows.filter((r) => r.status === s).length;
  const result: SweepResult = {
    schema_version: '1.0',
    sweep_id: kind === 'pareto' ? 'spica-sweep-<pareto>&"quoted"' : null,
    config_hash: 'sha256:0f3c9a',
    simulator_version: 'spica-sim 0.1.0',
    question: {
      model_name: 'Qwen/Qwen3-30B-A3B',
      hardware_sku: 'h200_sxm',
      gpu_budget: 16,
      goal,
      workload,
      policy: 'rapid',
      algorithm: 'bayesian',
      seed: 42,
    },
    objectives,
    counts: {
      evaluated: rows.length,
      feasible: count('feasible'),
      infeasible: count('infeasible'),
      unsupported: count('unsupported'),
      timed_out: count('timed_out'),
      failed: count('failed'),
      cache_hits: rows.filter((r) => r.cache_hit).length,
    },
    candidates: rows,
    views,
    branches: [
      { deployment_mode: 'agg', backends: ['vllm', 'sglang', 'trtllm'], rounds: 5, trials: 30, stop_reason: 'max_rounds', best_so_far: bestSoFar('agg') },
      { deployment_mode: 'disagg', backends: ['vllm', 'sglang'], rounds: 3, trials: 14, stop_reason: 'projection_stalled', best_so_far: bestSoFar('disagg') },
    ],
    load_predictor: kind === 'pareto' ? null : { '180': { winner: 'kalman_default_log1p', reason: 'lowest_loss', loss: 0.1234 } },
    warnings: ["deployment_mode 'disagg': TRT-LLM excluded <disagg>"],
    hypervolume: null,
  };
  if (kind === 'pareto') {
    const dirs = objectives.map((o) => o.direction);
    const points = feasible.map((r) => objectives.map((o) => r.objectives![o.name]));
    const ref = referencePoint(points, dirs);
    const front = paretoFrontIndices(points, dirs).map((i) => points[i]);
    result.hypervolume = { value: hypervolume(front, ref, dirs), reference_point: Object.fromEntries(objectives.map((o, k) => [o.name, ref[k]])) };
  }
  return SweepResultSchema.parse(result);
}
