// ReplaySpec → ResolvedDeployment + WorkloadPlan: model architecture, system spec, per-role memory
// estimate (KV tokens per rank) and perf model, P/D link bandwidth, router and planner settings, and
// the workload (trace read and hash-checked here). The I/O edge of replay; the core stays pure.
import type { EngineArgs, ReplaySpec } from './spec.js';
import { routerSettingsOf } from './spec.js';
import { createEnginePerf } from '../hardware/perf/engine.js';
import { replayCorrections } from '../hardware/perf/coefficients.js';
import { loadSystem } from '../hardware/systems.js';
import type { SystemSpec } from '../hardware/system.js';
import { architectureClassOf } from '../model/architecture-class.js';
import { resolveModel } from '../model/catalog.js';
import { defaultKvCacheDtype } from '../model/kv-cache.js';
import { estimateMemory, kvBytesPerToken } from '../model/memory.js';
import type { KvCacheDtype, ModelArch, WeightQuant } from '../model/arch.js';
import { gpusPerWorker, usedGpus, type ParallelShape, type WorkerGroup } from '../parallel/shape.js';
import type { PoolDeployment, ResolvedDeployment } from './deployment.js';
import type { EngineConfig, EngineRole } from './engine/engine-config.js';
import { TOKENIZE_MS_PER_TOKEN, type FrontendConfig } from './frontend.js';
import { ReplayInfeasible } from './infeasible.js';
import { replayDeployment } from './run.js';
import type { ReplayReport } from './report.js';
import { StaticController, type ScalingController } from './scaling.js';
import { createPlannerController, plannerInactiveReason, plannerSettingsOf } from './planner/index.js';
import { specHash } from './spec-hash.js';
import { kvLoadConcurrency } from './workload/kv-load.js';
import { buildWorkloadPlan } from './workload/plan.js';
import type { WorkloadPlan } from './workload/request.js';
import { readTraceChecked } from './workload/trace-file.js';

/** G1↔G2 default bandwidth (AIS host_offload d2h/h2d_bandwidth_gbps). */
export const DEFAULT_G2_BANDWIDTH_GBPS = 32;

export interface ResolveOptions {
  systemsDir?: string;
  coefficientsDir?: string;
  /**
   * Builds the planner's controller from the spec's `dynamo.planner` config and the resolved pools.
   * Default: the Dynamo planner port (src/replay/planner); null from it means "run static".
   */
  controllerFor?: (plannerConfig: Record<string, unknown>, spec: ReplaySpec, pools: readonly PoolDeployment[]) => ScalingController | null;
}

export interface ResolvedReplay {
  deployment: ResolvedDeployment;
  plan: WorkloadPlan;
  /** Closed-loop concurrency actually used (derived for kv_load_ratio), or null for open loop. */
  concurrency: number | null;
  kvCapacityTokensPerRank: Partial<Record<EngineRole, number>>;
  pdBandwidthGBps: number | null;
  planner: string;
}

interface RoleInput {
  role: EngineRole;
  group: WorkerGroup;
  args: EngineArgs;
}

function roles(spec: ReplaySpec): RoleInput[] {
  const bd = spec.backend_deployment;
  const pc = bd.parallel_config;
  if ('prefill' in pc) {
    return [
      { role: 'prefill', group: { ...pc.prefill, replicas: bd.num_prefill_workers ?? pc.prefill.replicas }, args: bd.prefill_engine_args! },
      { role: 'decode', group: { ...pc.decode, replicas: bd.num_decode_workers ?? pc.decode.replicas }, args: bd.decode_engine_args! },
    ];
  }
  return [{ role: 'agg', group: { ...pc, replicas: bd.num_workers ?? pc.replicas }, args: bd.agg_engine_args! }];
}

/** Clarification D: per-GPU link (intra-node if the deployment fits one node, else inter-node) × sender GPUs. */
export function pdBandwidthGBps(system: SystemSpec, totalGpus: number, senderGpus: number): number {
  const perGpu = totalGpus <= system.gpusPerNode ? system.intraNodeBwBps : system.interNodeBwBps;
  return (perGpu * senderGpus) / 1e9;
}

function plannerLabel(cfg: Record<string, unknown>): string {
  const p = cfg.planner_scaling_policy;
  if (p === undefined) return 'disabled';
  return typeof p === 'string' ? p : JSON.stringify(p);
}

function scalingEnabled(cfg: Record<string, unknown>): boolean {
  const p = cfg.planner_scaling_policy;
  if (p === undefined || p === 'disabled') return false;
  if (typeof p === 'object' && p !== null) {
    const o = p as Record<string, unknown>;
    return o.enable_throughput_scaling === true || o.enable_load_scaling === true;
  }
  return true;
}

export function resolveReplay(spec: ReplaySpec, opts: ResolveOptions = {}): ResolvedReplay {
  const bd = spec.backend_deployment;
  const model: ModelArch = resolveModel(bd.model_name);
  const system = loadSystem(bd.hardware_sku, { systemsDir: opts.systemsDir });
  const quant: WeightQuant = bd.quantization ?? model.weightQuant;
  const kvDtype: KvCacheDtype = bd.kv_cache_dtype ?? defaultKvCacheDtype(model, bd.backend, quant);
  const off = bd.kv_offload;
  const kvBytes = off.kv_bytes_per_token ?? kvBytesPerToken(model, kvDtype);
  const capacities: Partial<Record<EngineRole, number>> = {};
  // The frontend in front of every pool; its fixed latency is the fitted one of the first pool's engine.
  let frontend: FrontendConfig = { fixedMs: 0, tokenizeMsPerToken: TOKENIZE_MS_PER_TOKEN };
  const pools: PoolDeployment[] = roles(spec).map(({ role, group, args }) => {
    const shape: ParallelShape = { tp: group.tp, pp: group.pp, attention_dp: group.attention_dp, moe_tp: group.moe_tp, moe_ep: group.moe_ep };
    const est = estimateMemory({
      model,
      system,
      shape,
      backend: bd.backend,
      weightQuant: quant,
      kvDtype,
      gpuMemoryUtilization: args.gpu_memory_utilization,
      maxNumBatchedTokens: args.max_num_batched_tokens,
      maxNumSeqs: args.max_num_seqs,
    });
    if (!est.fits || est.kvCapacityTokensPerRank < args.block_size)
      throw new ReplayInfeasible('kv_capacity', `${role} workers (${JSON.stringify(shape)}) have no KV budget for ${model.id} on ${system.sku}`);
    capacities[role] = est.kvCapacityTokensPerRank;
    const nextn = args.nextn ?? 0;
    const engine: EngineConfig = {
      role,
      backend: bd.backend,
      maxNumBatchedTokens: args.max_num_batched_tokens,
      maxNumSeqs: args.max_num_seqs,
      blockSize: args.block_size,
      kvCapacityTokensPerRank: est.kvCapacityTokensPerRank,
      enablePrefixCaching: args.enable_prefix_caching,
      chunkedPrefill: true,
      attentionDp: group.attention_dp,
      nextn,
      hostTier:
        off.num_g2_blocks > 0
          ? {
              numBlocks: off.num_g2_blocks,
              blockBytes: args.block_size * kvBytes,
              h2dGBps: off.bandwidth_g2_to_g1_gbps ?? DEFAULT_G2_BANDWIDTH_GBPS,
              d2hGBps: off.bandwidth_g1_to_g2_gbps ?? DEFAULT_G2_BANDWIDTH_GBPS,
              offloadBatchSize: off.offload_batch_size ?? 1,
              batchLatencyMs: 0,
            }
          : null,
    };
    // Disaggregated workers run on the kernel tables as timed (coefficients.ts disaggEngineOverhead).
    const perf = createEnginePerf({ model, system, backend: bd.backend, shape, quant, kvDtype, nextn, coefficientsDir: opts.coefficientsDir, mode: bd.deployment_mode });
    // Replay-fitted corrections (src/calibration: pass scale, prefill factor, admission lag, frontend latency), when the file has them.
    const rc = perf.overhead.replay;
    if (rc) {
      const c = replayCorrections(rc, bd.deployment_mode, architectureClassOf(model));
      engine.passTimeScale = c.passScale;
      if (c.prefillScale !== 1) engine.prefillTimeScale = c.prefillScale;
      if (c.admissionLagPasses > 0) engine.admissionLagPasses = c.admissionLagPasses;
      if (role !== 'decode') frontend = { ...frontend, fixedMs: c.admissionMs };
    }
    return { role, engine, perf, gpusPerWorker: gpusPerWorker(shape), replicas: group.replicas, startupTimeMs: (args.startup_time ?? 0) * 1000 };
  });

  let bandwidth: number | null = null;
  if (bd.deployment_mode === 'disagg') {
    bandwidth = bd.pd_transfer_bandwidth_gbps ?? pdBandwidthGBps(system, usedGpus(bd.parallel_config), pools[0].gpusPerWorker);
  }

  const w = spec.workload;
  let concurrency = spec.concurrency;
  if (concurrency === null && w.kv_load_ratio !== undefined) {
    if (Array.isArray(w.kv_load_ratio))
      throw new ReplayInfeasible('replay_runtime', 'kv_load_ratio is a range: the sweeper must sample a ratio and pass the derived concurrency');
    const serving = pools[pools.length - 1];
    concurrency = kvLoadConcurrency({
      ratio: w.kv_load_ratio,
      perRankTokens: serving.engine.kvCapacityTokensPerRank,
      blockSize: serving.engine.blockSize,
      attentionDp: serving.engine.attentionDp,
      replicas: serving.replicas,
      isl: w.isl!,
      osl: w.osl!,
    });
    if (concurrency < 1) throw new ReplayInfeasible('kv_capacity', 'the serving role has no KV budget for a kv_load_ratio workload');
  }
  const trace = w.trace_path !== undefined ? readTraceChecked(w.trace_path, spec.trace_sha256) : null;
  const plan = buildWorkloadPlan(w, { traceText: trace?.text, traceName: w.trace_path, concurrency });

  const plannerCfg = spec.adapters['dynamo.planner']?.config ?? {};
  let scaling: ScalingController | null = new StaticController();
  let planner = 'static';
  if (scalingEnabled(plannerCfg)) {
    const build = opts.controllerFor ?? ((cfg, s, p) => createPlannerController(cfg, s.goal, p));
    const c = build(plannerCfg, spec, pools);
    if (c) {
      scaling = c;
      planner = plannerLabel(plannerCfg);
    } else {
      const why = opts.controllerFor ? 'no controller given' : plannerInactiveReason(plannerSettingsOf(plannerCfg, spec.goal));
      planner = `static (scaling policy ${plannerLabel(plannerCfg)} inactive: ${why})`;
    }
  }
  const r = routerSettingsOf(spec);
  const deployment: ResolvedDeployment = {
    mode: bd.deployment_mode,
    pools,
    router: {
      mode: r.router_mode,
      overlapScoreCredit: r.overlap_score_credit,
      prefillLoadScale: r.prefill_load_scale,
      temperature: r.router_temperature,
      hostCacheHitWeight: r.host_cache_hit_weight,
      diskCacheHitWeight: r.disk_cache_hit_weight,
    },
    transfer: bd.deployment_mode === 'disagg' ? { bandwidthGBps: bandwidth, kvBytesPerToken: kvBytes } : null,
    scaling,
    seed: spec.seed,
    frontend,
  };
  return { deployment, plan, concurrency: plan.concurrency, kvCapacityTokensPerRank: capacities, pdBandwidthGBps: bandwidth, planner };
}

/** The Runner: one ReplaySpec in, one ReplayReport out. */
export function runReplay(spec: ReplaySpec, opts: ResolveOptions = {}): ReplayReport {
  const r = resolveReplay(spec, opts);
  const bd = spec.backend_deployment;
  const metadata: Record<string, string | number | boolean | null> = {
    deployment_mode: bd.deployment_mode,
    backend: bd.backend,
    used_gpus: usedGpus(bd.parallel_config),
    concurrency: r.concurrency,
    num_requests: r.plan.numRequests,
    pd_transfer_bandwidth_gbps: r.pdBandwidthGBps,
    planner: r.planner,
    router_mode: r.deployment.router.mode,
  };
  for (const [role, tokens] of Object.entries(r.kvCapacityTokensPerRank)) metadata[`kv_capacity_tokens_per_rank_${role}`] = tokens;
  const report = replayDeployment(r.deployment, r.plan, { specHash: specHash(spec), sla: spec.goal.sla ?? null, metadata });
  // The planner's counters (ticks, scale ups/downs, max replicas per role) travel with the metrics.
  const stats = r.deployment.scaling?.stats?.();
  if (stats) for (const [k, v] of Object.entries(stats)) if (Number.isFinite(v)) report.metrics[k] = v;
  return report;
}
