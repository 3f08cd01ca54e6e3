// What is deployed is what was replayed: for each case, the ReplaySpec the sweep replays for a
// candidate is recorded on its row, `spica deploy` writes the files, and this test parses them back
// (manifest args and env, the unflagged-setting comments, the planner's --config, bench_run.sh) with
// its own reading of each backend's flags and compares them field by field with that ReplaySpec.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { FlatCandidateInput } from '../../src/config/candidate.js';
import { configFromObject } from '../../src/config/load.js';
import { resolveModel } from '../../src/model/catalog.js';
import { defaultKvCacheDtype } from '../../src/model/kv-cache.js';
import { kvBytesPerToken } from '../../src/model/memory.js';
import { plannerSettingsOf } from '../../src/replay/planner/index.js';
import { FlatCandidateSchema, routerSettingsOf, type EngineArgs, type ReplaySpec } from '../../src/replay/spec.js';
import { writeDeploymentFiles } from '../../src/results/deploy/writeDeployment.js';
import { readUnflagged } from '../../src/results/deploy/unflagged.js';
import { deploymentRecordOf, sweptReplaySpec } from '../../src/search/deploymentRecord.js';
import { candidateId, SweepResultSchema, type CandidateRow, type SweepResult } from '../../src/search/sweepResult.js';
import { flags } from './deploy-harness.js';

const root = mkdtempSync(join(tmpdir(), 'spica-roundtrip-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Group = { tp: number; pp?: number; attention_dp?: number; moe_tp?: number; moe_ep?: number; replicas: number };
const grp = (g: Group) => ({ pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 1, ...g });

interface Case {
  name: string;
  config: Record<string, unknown>;
  candidate: FlatCandidateInput;
  concurrency: number | null;
}

const dense = { model_name: 'meta-llama/Llama-3.1-8B-Instruct', hardware_sku: 'h100_sxm', gpu_budget: 8 };
const moe = { model_name: 'Qwen/Qwen3-30B-A3B', hardware_sku: 'h200_sxm', gpu_budget: 16 };
const synth = { isl: 1024, osl: 128, concurrency: 16, num_request_ratio: 4 };
const kvRouter = { router_mode: 'kv_router', overlap_score_credit: 0.5, prefill_load_scale: 2, router_temperature: 0.2 };

const CASES: Case[] = [
  {
    name: 'agg vllm dense, pinned engine scalars (gpu_memory_utilization 0.3), context_length, round-robin, planner disabled',
    config: { search_space: { ...dense, deployment_mode: ['agg'], backend: ['vllm'], agg_gpu_memory_utilization: 0.3, agg_enable_prefix_caching: false, context_length: 8192 }, workload: synth, goal: { target: 'throughput' } },
    candidate: { deployment_mode: 'agg', backend: 'vllm', engine: { agg_max_num_seqs: 256, agg_max_num_batched_tokens: 8192 }, parallel_config: grp({ tp: 2, replicas: 3 }), adapters: { 'dynamo.router': { router_mode: 'round_robin' }, 'dynamo.planner': { planner_scaling_policy: 'disabled' } } },
    concurrency: null,
  },
  {
    name: 'agg sglang dense, KV router, G2 host offload on, fp8 KV cache',
    config: { search_space: { ...dense, deployment_mode: ['agg'], backend: ['sglang'], kv_cache_dtype: 'fp8', num_g2_blocks: 4096, kv_bytes_per_token: 65536, bandwidth_g1_to_g2_gbps: 25, offload_batch_size: 8 }, workload: { ...synth, request_rate: undefined }, goal: { target: 'throughput' } },
    candidate: { deployment_mode: 'agg', backend: 'sglang', engine: { agg_max_num_seqs: 512, agg_max_num_batched_tokens: 16384 }, parallel_config: grp({ tp: 1, replicas: 4 }), adapters: { 'dynamo.router': { ...kvRouter, host_cache_hit_weight: 1, disk_cache_hit_weight: 0 }, 'dynamo.planner': {} } },
    concurrency: null,
  },
  {
    name: 'agg trtllm dense, G2 on, fp8 weights override',
    config: { search_space: { ...dense, deployment_mode: ['agg'], backend: ['trtllm'], quantization: 'fp8', num_g2_blocks: 1024, kv_bytes_per_token: 131072 }, workload: { isl: 2048, osl: 256, request_rate: 2, num_request_ratio: 30 }, goal: { target: 'throughput' } },
    candidate: { deployment_mode: 'agg', backend: 'trtllm', engine: { agg_max_num_seqs: 1024, agg_max_num_batched_tokens: 32768 }, parallel_config: grp({ tp: 4, replicas: 2 }), adapters: { 'dynamo.router': { ...kvRouter, host_cache_hit_weight: 0.5, disk_cache_hit_weight: 0.25 } } },
    concurrency: null,
  },
  {
    name: 'disagg vllm MoE: attention-DP + EP decode (DEP), TEP prefill, kv_load_ratio concurrency, load planner on with min_gpu_budget/min_endpoint',
    config: {
      search_space: { ...moe, deployment_mode: ['disagg'], backend: ['vllm'], min_gpu_budget: 4, min_endpoint: 2, startup_time: 30, decode_gpu_memory_utilization: 0.85 },
      workload: { isl: 2048, osl: 256, kv_load_ratio: 0.5, num_request_ratio: 2, shared_prefix_ratio: 0.25, num_prefix_groups: 8 },
      goal: { target: 'goodput_per_gpu', sla: { ttft_ms: 1500, itl_ms: 40 } },
    },
    candidate: {
      deployment_mode: 'disagg',
      backend: 'vllm',
      engine: { prefill_max_num_seqs: 16, prefill_max_num_batched_tokens: 16384, decode_max_num_seqs: 512, decode_max_num_batched_tokens: 8192 },
      parallel_config: { prefill: grp({ tp: 4, moe_ep: 4, replicas: 1 }), decode: grp({ tp: 1, attention_dp: 8, moe_ep: 8, replicas: 1 }) },
      adapters: { 'dynamo.router': kvRouter, 'dynamo.planner': { planner_scaling_policy: 'load_180_10', planner_fpm_sampling: 'large', planner_load_sensitivity: 'conservative' } },
    },
    concurrency: 96,
  },
  {
    name: 'disagg sglang MoE: MoE-TP decode with attention DP (DTP), hybrid planner with throughput scaling and a forecaster',
    config: {
      search_space: { ...moe, deployment_mode: ['disagg'], backend: ['sglang'] },
      workload: { isl: 1024, osl: 256, concurrency: 32, num_request_ratio: 3, turns_per_session: 2, inter_turn_delay_ms: 500 },
      goal: { target: 'goodput', sla: { ttft_ms: 2000, itl_ms: 50 } },
    },
    candidate: {
      deployment_mode: 'disagg',
      backend: 'sglang',
      engine: { prefill_max_num_seqs: 4, prefill_max_num_batched_tokens: 8192, decode_max_num_seqs: 256, decode_max_num_batched_tokens: 8192 },
      parallel_config: { prefill: grp({ tp: 2, moe_tp: 2, replicas: 2 }), decode: grp({ tp: 1, attention_dp: 4, moe_tp: 4, replicas: 1 }) },
      adapters: {
        'dynamo.router': { router_mode: 'round_robin' },
        'dynamo.planner': { planner_scaling_policy: 'hybrid_180_5', planner_fpm_sampling: 'fine', planner_load_sensitivity: 'aggressive', load_predictor: 'kalman_default_log1p', load_predictor_spec: { load_predictor: 'kalman', load_predictor_log1p: true, kalman_q_level: 1, kalman_q_trend: 0.1, kalman_r: 10, kalman_min_points: 5 } },
      },
    },
    concurrency: null,
  },
  {
    name: 'agg vllm MoE MTP on (aic_nextn 2), DEP attention-DP + EP, throughput planner inactive without an SLA target',
    config: { search_space: { model_name: 'deepseek-ai/DeepSeek-V3', hardware_sku: 'h200_sxm', gpu_budget: 16, deployment_mode: ['agg'], backend: ['vllm'], aic_nextn: 2 }, workload: synth, goal: { target: 'throughput' } },
    candidate: { deployment_mode: 'agg', backend: 'vllm', engine: { agg_max_num_seqs: 256, agg_max_num_batched_tokens: 8192 }, parallel_config: grp({ tp: 1, attention_dp: 8, moe_ep: 8, replicas: 2 }), adapters: { 'dynamo.router': { router_mode: 'round_robin' }, 'dynamo.planner': { planner_scaling_policy: 'throughput_180_5' } } },
    concurrency: null,
  },
  {
    name: 'agg trtllm MoE MTP on, TEP, load planner',
    config: { search_space: { model_name: 'deepseek-ai/DeepSeek-V3', hardware_sku: 'h200_sxm', gpu_budget: 16, deployment_mode: ['agg'], backend: ['trtllm'], aic_nextn: 1 }, workload: synth, goal: { target: 'throughput' } },
    candidate: { deployment_mode: 'agg', backend: 'trtllm', engine: { agg_max_num_seqs: 256, agg_max_num_batched_tokens: 8192 }, parallel_config: grp({ tp: 8, moe_ep: 8, replicas: 1 }), adapters: { 'dynamo.router': kvRouter, 'dynamo.planner': { planner_scaling_policy: 'load_180_5' } } },
    concurrency: null,
  },
];


interface ReadWorker {
  group: { tp: number; pp: number; attention_dp: number; moe_tp: number; moe_ep: number; replicas: number };
  engine: Omit<EngineArgs, 'startup_time'>;
  context_length: number;
  kv_cache_dtype: string;
  quantization: string;
  g2_blocks: number;
}

/** This test's own reading of a worker service's flags (independent of src/results/deploy). */
function readWorker(backend: string, svc: any, notes: Map<string, unknown>, role: string, isMoe: boolean, checkpointQuant: string): ReadWorker {
  const c = svc.extraPodSpec.mainContainer;
  expect(c.command).toEqual(['python3', '-m', `dynamo.${backend}`]);
  const f = flags(c.args);
  const env = Object.fromEntries((c.env ?? []).map((e: { name: string; value: string }) => [e.name, e.value]));
  const num = (k: string) => Number(f.get(k));
  const gpus = Number(svc.resources.limits.gpu);
  const quantFlag = f.get('--quantization');
  const quantization = quantFlag === undefined ? (notes.get(`${role}.quantization`) as string) : quantFlag === 'modelopt_fp4' ? 'nvfp4' : quantFlag === 'fp8' ? (checkpointQuant === 'fp8_block' ? 'fp8_block' : 'fp8') : String(quantFlag);
  if (backend === 'vllm') {
    const tp = num('--tensor-parallel-size');
    const dp = num('--data-parallel-size');
    const ep = f.has('--enable-expert-parallel') ? tp * dp : 1;
    const spec = f.has('--speculative-config') ? JSON.parse(f.get('--speculative-config') as string) : null;
    if (spec) expect(spec.method).toBe('mtp');
    expect(f.get('--enable-chunked-prefill')).toBe(true);
    if (role !== 'agg') expect(f.get('--disaggregation-mode')).toBe(role);
    return {
      group: { tp, pp: f.has('--pipeline-parallel-size') ? num('--pipeline-parallel-size') : 1, attention_dp: dp, moe_tp: isMoe ? (tp * dp) / ep : 1, moe_ep: isMoe ? ep : 1, replicas: svc.replicas },
      engine: {
        max_num_seqs: num('--max-num-seqs'),
        max_num_batched_tokens: num('--max-num-batched-tokens'),
        block_size: num('--block-size'),
        gpu_memory_utilization: num('--gpu-memory-utilization'),
        enable_prefix_caching: f.has('--enable-prefix-caching') && !f.has('--no-enable-prefix-caching'),
        nextn: spec ? spec.num_speculative_tokens : null,
      },
      context_length: num('--max-model-len'),
      kv_cache_dtype: f.get('--kv-cache-dtype') === 'fp8' ? 'fp8' : 'bf16',
      quantization,
      g2_blocks: f.get('--connector') === 'kvbm' ? Number(env.DYN_KVBM_CPU_CACHE_OVERRIDE_NUM_BLOCKS) : 0,
    };
  }
  if (backend === 'sglang') {
    const all = num('--tp-size');
    const dp = num('--dp-size');
    expect(f.has('--enable-dp-attention')).toBe(dp > 1);
    const ep = num('--ep-size');
    if (role !== 'agg') expect([f.get('--disaggregation-mode'), f.get('--disaggregation-transfer-backend')]).toEqual([role, 'nixl']);
    const steps = f.has('--speculative-num-steps') ? num('--speculative-num-steps') : null;
    if (steps !== null) expect([f.get('--speculative-algorithm'), num('--speculative-num-draft-tokens')]).toEqual(['EAGLE', steps + 1]);
    const g2 = f.has('--enable-hierarchical-cache') ? (notes.get(`${role}.kv_offload.num_g2_blocks`) as number) : 0;
    return {
      group: { tp: all / dp, pp: f.has('--pp-size') ? num('--pp-size') : 1, attention_dp: dp, moe_tp: isMoe ? all / ep : 1, moe_ep: isMoe ? ep : 1, replicas: svc.replicas },
      engine: {
        max_num_seqs: num('--max-running-requests'),
        max_num_batched_tokens: num('--chunked-prefill-size'),
        block_size: num('--page-size'),
        gpu_memory_utilization: num('--mem-fraction-static'),
        enable_prefix_caching: !f.has('--disable-radix-cache'),
        nextn: steps,
      },
      context_length: num('--context-length'),
      kv_cache_dtype: f.get('--kv-cache-dtype') === 'fp8_e4m3' ? 'fp8' : 'bf16',
      quantization,
      g2_blocks: g2,
    };
  }
  const all = num('--tensor-parallel-size');
  const o = JSON.parse(f.get('--override-engine-args') as string);
  const dp = o.enable_attention_dp ? gpus : 1;
  const ep = num('--moe-expert-parallel-size');
  expect(o.enable_chunked_prefill).toBe(true);
  return {
    group: { tp: all / dp, pp: f.has('--pipeline-parallel-size') ? num('--pipeline-parallel-size') : 1, attention_dp: dp, moe_tp: isMoe ? all / ep : 1, moe_ep: isMoe ? ep : 1, replicas: svc.replicas },
    engine: {
      max_num_seqs: num('--max-batch-size'),
      max_num_batched_tokens: num('--max-num-tokens'),
      block_size: num('--kv-block-size'),
      gpu_memory_utilization: num('--kv-cache-free-gpu-memory-fraction'),
      enable_prefix_caching: o.kv_cache_config.enable_block_reuse,
      nextn: o.speculative_config ? o.speculative_config.num_nextn_predict_layers : null,
    },
    context_length: num('--max-seq-len'),
    kv_cache_dtype: o.kv_cache_config.dtype === 'fp8' ? 'fp8' : 'bf16',
    quantization,
    g2_blocks: o.kv_connector_config ? Number(env.DYN_KVBM_CPU_CACHE_OVERRIDE_NUM_BLOCKS) : 0,
  };
}

function resultWith(config: ReturnType<typeof configFromObject>, row: CandidateRow): SweepResult {
  return SweepResultSchema.parse({
    schema_version: '1.0',
    sweep_id: null,
    config_hash: 'test',
    simulator_version: 'test',
    question: { model_name: config.search_space.model_name, hardware_sku: config.search_space.hardware_sku, gpu_budget: config.search_space.gpu_budget, goal: { ...config.goal }, workload: { ...config.workload }, policy: 'rapid', algorithm: 'bayesian', seed: 0 },
    objectives: [{ name: 'throughput', direction: 'max' }],
    counts: { evaluated: 1, feasible: 1, infeasible: 0, unsupported: 0, timed_out: 0, failed: 0, cache_hits: 0 },
    candidates: [row],
    views: { top_n: [row.id] },
    branches: [],
    load_predictor: null,
    warnings: [],
  });
}

describe('spica deploy renders exactly the replayed ReplaySpec', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const config = configFromObject(c.config);
    const candidate = FlatCandidateSchema.parse(c.candidate);
    const spec: ReplaySpec = sweptReplaySpec(config, candidate, c.concurrency);
    const row: CandidateRow = {
      id: candidateId(1), branch: candidate.deployment_mode, round: 1, status: 'feasible', reason_category: null, reason: null, config: candidate,
      used_gpus: 0, concurrency: c.concurrency, score: 1, objectives: { throughput: 1 }, metrics: { output_throughput_tok_s: 1 }, spica_projection: null, point: {}, cache_hit: false,
      deployment: deploymentRecordOf(spec),
    };
    const out = join(root, c.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60));
    writeDeploymentFiles(resultWith(config, row), row, out);
    const manifestText = readFileSync(join(out, 'k8s_deploy.yaml'), 'utf8');
    const manifest = parse(manifestText);
    const notes = readUnflagged(manifestText);
    const services = manifest.spec.services as Record<string, any>;
    const bd = spec.backend_deployment;
    const model = resolveModel(bd.model_name);
    const isMoe = model.numExperts > 0;

    // Workers, role by role.
    const roles: [string, any, number, EngineArgs][] =
      'prefill' in bd.parallel_config
        ? [
            ['prefill', bd.parallel_config.prefill, bd.num_prefill_workers!, bd.prefill_engine_args!],
            ['decode', bd.parallel_config.decode, bd.num_decode_workers!, bd.decode_engine_args!],
          ]
        : [['agg', bd.parallel_config, bd.num_workers!, bd.agg_engine_args!]];
    const workers = Object.values(services).filter((s) => s.componentType === 'worker');
    expect(workers).toHaveLength(roles.length);
    // The simulated KV dtype: the config's, else the engine's default for the checkpoint.
    const kvDtype = bd.kv_cache_dtype ?? defaultKvCacheDtype(model, bd.backend, bd.quantization ?? model.weightQuant);
    for (const [role, group, n, engine] of roles) {
      const svc = workers.find((s) => (role === 'agg' ? s.subComponentType === undefined : s.subComponentType === role));
      const w = readWorker(bd.backend, svc, notes, role, isMoe, model.weightQuant);
      expect(w.group).toEqual({ ...group, replicas: n });
      const { startup_time, ...rest } = engine;
      expect(w.engine).toEqual(rest);
      expect(notes.get(`${role}.startup_time`) ?? null).toBe(startup_time);
      expect(w.context_length).toBe(bd.context_length ?? model.maxContext);
      expect(w.kv_cache_dtype).toBe(kvDtype);
      expect(w.quantization).toBe(bd.quantization ?? model.weightQuant);
      expect(w.g2_blocks).toBe(bd.kv_offload.num_g2_blocks);
      if (bd.kv_offload.num_g2_blocks > 0) {
        expect(notes.get(`${role}.kv_offload.bandwidth_g1_to_g2_gbps`)).toBe(bd.kv_offload.bandwidth_g1_to_g2_gbps ?? 32);
        expect(notes.get(`${role}.kv_offload.bandwidth_g2_to_g1_gbps`)).toBe(bd.kv_offload.bandwidth_g2_to_g1_gbps ?? 32);
        expect(notes.get(`${role}.kv_offload.offload_batch_size`)).toBe(bd.kv_offload.offload_batch_size ?? 1);
      }
    }
    expect(notes.get('kv_bytes_per_token')).toBe(bd.kv_offload.kv_bytes_per_token ?? kvBytesPerToken(model, kvDtype));
    if (bd.deployment_mode === 'disagg') expect(notes.get('pd_transfer_bandwidth_gbps')).toBe(bd.pd_transfer_bandwidth_gbps ?? 'system link');

    // Router.
    const r = routerSettingsOf(spec);
    const fe = flags(services.Frontend.extraPodSpec.mainContainer.args);
    if (r.router_mode === 'round_robin') expect(fe.get('--router-mode')).toBe('round-robin');
    else
      expect({
        mode: fe.get('--router-mode'),
        credit: Number(fe.get('--router-kv-overlap-score-credit')),
        scale: Number(fe.get('--router-prefill-load-scale')),
        temperature: Number(fe.get('--router-temperature')),
        host: Number(fe.get('--router-host-cache-hit-weight')),
        disk: Number(fe.get('--router-disk-cache-hit-weight')),
      }).toEqual({ mode: 'kv', credit: r.overlap_score_credit, scale: r.prefill_load_scale, temperature: r.router_temperature, host: r.host_cache_hit_weight, disk: r.disk_cache_hit_weight });

    // Planner: deployed iff the replay ran a scaling loop, with the settings the replay's planner used.
    const p = plannerSettingsOf(spec.adapters['dynamo.planner']?.config ?? {}, spec.goal);
    const active = p.throughputScaling || p.loadScaling;
    expect(services.Planner !== undefined).toBe(active);
    if (!active && (p.requested.throughput || p.requested.load)) expect(notes.has('planner.scaling_policy')).toBe(true);
    if (active) {
      const cfg = JSON.parse(flags(services.Planner.extraPodSpec.mainContainer.args).get('--config') as string);
      const gpusOf = (role: string) => {
        const g = roles.find(([x]) => x === role)?.[1];
        return g ? g.tp * g.attention_dp : undefined;
      };
      expect(cfg).toMatchObject({
        mode: bd.deployment_mode,
        optimization_target: p.optimizationTarget,
        enable_throughput_scaling: p.throughputScaling,
        enable_load_scaling: p.loadScaling,
        max_num_fpm_samples: p.maxFpmSamples,
        fpm_sample_bucket_size: p.fpmBucketSize,
        load_scaling_down_sensitivity: p.downSensitivity,
        load_min_observations: p.minObservations,
        max_gpu_budget: p.maxGpuBudget,
        min_endpoint: p.minEndpoint,
        decode_engine_num_gpu: gpusOf(bd.deployment_mode === 'disagg' ? 'decode' : 'agg'),
        ttft_ms: p.ttftMs,
        itl_ms: p.itlMs,
      });
      expect(cfg.min_gpu_budget ?? 0).toBe(p.minGpuBudget);
      expect(cfg.prefill_engine_num_gpu).toBe(gpusOf('prefill'));
      expect(cfg.throughput_adjustment_interval ?? null).toBe(p.throughputScaling ? p.throughputIntervalMs / 1000 : null);
      expect(cfg.load_adjustment_interval ?? null).toBe(p.loadScaling ? p.loadIntervalMs / 1000 : null);
      if (p.throughputScaling) expect(cfg).toMatchObject(p.predictor);
    }

    // Benchmark: the replayed workload against the endpoint.
    const bench = readFileSync(join(out, 'bench_run.sh'), 'utf8');
    const argv = bench
      .slice(bench.indexOf('exec aiperf profile'))
      .replace(/\\\n/g, ' ')
      .trim()
      .split(/\s+/)
      .slice(3);
    const b = flags(argv);
    const w = spec.workload;
    expect(b.get('--model')).toBe(bd.model_name);
    expect(Number(b.get('--synthetic-input-tokens-mean'))).toBe(w.isl);
    expect(Number(b.get('--output-tokens-mean'))).toBe(w.osl);
    const load = w.request_rate ?? w.concurrency ?? spec.concurrency!;
    if (w.request_rate !== undefined) expect(Number(b.get('--request-rate'))).toBe(w.request_rate);
    else expect(Number(b.get('--concurrency'))).toBe(load);
    expect(Number(b.get('--request-count'))).toBe(Math.max(1, Math.round(w.num_request_ratio! * load)));
    if (w.shared_prefix_ratio > 0) expect(Number(b.get('--prefix-prompt-length'))).toBe(Math.floor(w.shared_prefix_ratio * w.isl!));
    if (w.turns_per_session > 1) expect(Number(b.get('--conversation-turn-mean'))).toBe(w.turns_per_session);
  });

  it('covers agg, disagg, attention-DP + EP, MoE TP, planner on and off, G2, MTP and every backend', () => {
    const specs = CASES.map((c) => sweptReplaySpec(configFromObject(c.config), FlatCandidateSchema.parse(c.candidate), c.concurrency));
    const bds = specs.map((s) => s.backend_deployment);
    const groups = bds.flatMap((b) => ('prefill' in b.parallel_config ? [b.parallel_config.prefill, b.parallel_config.decode] : [b.parallel_config]));
    expect(new Set(bds.map((b) => b.deployment_mode))).toEqual(new Set(['agg', 'disagg']));
    expect(new Set(bds.map((b) => b.backend))).toEqual(new Set(['vllm', 'sglang', 'trtllm']));
    expect(groups.some((g) => g.attention_dp > 1 && g.moe_ep > 1)).toBe(true);
    expect(groups.some((g) => g.attention_dp > 1 && g.moe_tp > 1)).toBe(true);
    expect(bds.some((b) => b.kv_offload.num_g2_blocks > 0)).toBe(true);
    expect(bds.some((b) => (b.agg_engine_args ?? b.decode_engine_args)!.nextn)).toBe(true);
    const active = specs.map((s) => {
      const p = plannerSettingsOf(s.adapters['dynamo.planner']?.config ?? {}, s.goal);
      return p.throughputScaling || p.loadScaling;
    });
    expect(new Set(active)).toEqual(new Set([true, false]));
  });
});
