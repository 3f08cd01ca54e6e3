// Adapter from a SmartSearchConfig to the pure parallel core: resolves the model and SKU, checks perf-DB
// coverage per backend, wires the memory estimator in as the KV-feasibility function, and builds every
// deployment_mode branch (enumerated, or from the pinned parallel_configs). I/O lives here only.
import type { SmartSearchConfig } from '../config/schema.js';
import { NoPerfDatabase } from '../errors.js';
import { hasPerfDatabase } from '../hardware/perf/coefficients.js';
import type { SystemSpec } from '../hardware/system.js';
import { loadSystem } from '../hardware/systems.js';
import { BACKENDS, isMoe, type Backend, type KvCacheDtype, type ModelArch, type WeightQuant } from '../model/arch.js';
import { resolveModel } from '../model/catalog.js';
import { defaultKvCacheDtype } from '../model/kv-cache.js';
import { estimateMemory, totalWeightBytes } from '../model/memory.js';
import { enumerateBranch, planBranches } from './enumerate.js';
import type { KvTokensPerRank, Role, ShapeFacts } from './legality.js';
import { pinnedBranch } from './pinned.js';
import { sortBackends, type BranchPool, type DroppedBackend } from './pool.js';
import type { DeploymentMode } from './shape.js';

export interface ParallelSourceOptions {
  /** Directory model paths (HF config.json) are relative to. */
  baseDir?: string;
  systemsDir?: string;
  coefficientsDir?: string;
}

export interface ParallelInputs {
  model: ModelArch;
  system: SystemSpec;
  weightQuant: WeightQuant;
  /** KV-cache dtype a backend runs with: the config's, else the backend's default for the checkpoint (defaultKvCacheDtype). */
  kvDtypeOf: (backend: Backend) => KvCacheDtype;
  facts: ShapeFacts;
  kvTokensPerRank: KvTokensPerRank;
  gpuBudget: number;
  minGpuBudget: number;
  /** Listed backends that have a perf database, in BACKENDS order. */
  backends: Backend[];
  /** Listed backends without one (dropped from every branch). */
  droppedBackends: DroppedBackend[];
}

export interface ParallelPlan {
  branches: BranchPool[];
  warnings: string[];
  inputs: ParallelInputs;
}

type SearchSpace = SmartSearchConfig['search_space'];

/** Engine knobs of one role that size the non-KV memory (activations, per-sequence state). */
function roleEngine(ss: SearchSpace, role: Role): { util: number; tokens: number; seqs: number } {
  const pick = {
    agg: [ss.agg_gpu_memory_utilization, ss.agg_max_num_batched_tokens, ss.agg_max_num_seqs],
    prefill: [ss.prefill_gpu_memory_utilization, ss.prefill_max_num_batched_tokens, ss.prefill_max_num_seqs],
    decode: [ss.decode_gpu_memory_utilization, ss.decode_max_num_batched_tokens, ss.decode_max_num_seqs],
  } as const;
  const [util, tokens, seqs] = pick[role];
  // The smallest searched values: a shape stays if any knob setting leaves room for one longest
  // sequence; replay judges the combinations that overflow.
  return { util, tokens: Math.min(...tokens), seqs: Math.min(...seqs) };
}

/** Resolves everything the parallel core needs from a config (model, SKU, perf-DB coverage, KV). */
export function parallelInputs(config: SmartSearchConfig, opts: ParallelSourceOptions = {}): ParallelInputs {
  const ss = config.search_space;
  const model = resolveModel(ss.model_name, { baseDir: opts.baseDir });
  const system = loadSystem(ss.hardware_sku, { systemsDir: opts.systemsDir });
  const weightQuant = ss.quantization ?? model.weightQuant;
  const kvDtypeOf = (backend: Backend): KvCacheDtype => ss.kv_cache_dtype ?? defaultKvCacheDtype(model, backend, weightQuant);

  const listed = sortBackends(ss.backend as Backend[]);
  const backends = listed.filter((b) => hasPerfDatabase(ss.hardware_sku, b, opts.coefficientsDir));
  if (backends.length === 0) {
    throw listed.length === 1 ? new NoPerfDatabase(ss.hardware_sku, listed[0]) : new NoPerfDatabase(ss.hardware_sku);
  }
  const droppedBackends = listed
    .filter((b) => !backends.includes(b))
    .map((backend) => ({ backend, reason: `no perf database (calibrated coefficients) for ${backend} on ${ss.hardware_sku}` }));

  const facts: ShapeFacts = {
    isMoe: isMoe(model),
    maxSeqLen: ss.context_length ?? model.maxContext,
    gpusPerNode: system.gpusPerNode,
    vramPerGpuBytes: system.memCapacityBytes,
    weightBytes: totalWeightBytes(model, weightQuant),
  };
  const cache = new Map<string, number>();
  const kvTokensPerRank: KvTokensPerRank = (shape, backend, role) => {
    const key = `${backend}/${role}/${shape.tp},${shape.pp},${shape.attention_dp},${shape.moe_tp},${shape.moe_ep}`;
    let v = cache.get(key);
    if (v === undefined) {
      const e = roleEngine(ss, role);
      v = estimateMemory({
        model,
        system,
        shape,
        backend,
        weightQuant,
        kvDtype: kvDtypeOf(backend),
        gpuMemoryUtilization: e.util,
        maxNumBatchedTokens: e.tokens,
        maxNumSeqs: e.seqs,
      }).kvCapacityTokensPerRank;
      cache.set(key, v);
    }
    return v;
  };
  return {
    model,
    system,
    weightQuant,
    kvDtypeOf,
    facts,
    kvTokensPerRank,
    gpuBudget: ss.gpu_budget,
    minGpuBudget: ss.min_gpu_budget ?? 1,
    backends,
    droppedBackends,
  };
}

/**
 * Every deployment_mode branch of the config. Pinned parallel_configs (single mode, validated at load)
 * form the pool; otherwise the pool is enumerated. Modes without a viable backend are skipped with a
 * warning; NoViableParallelConfig only when no mode is viable; InputError for a pin legal nowhere.
 */
export function planParallel(config: SmartSearchConfig, opts: ParallelSourceOptions = {}): ParallelPlan {
  const inputs = parallelInputs(config, opts);
  const ss = config.search_space;
  const modes = ss.deployment_mode as DeploymentMode[];
  const ctx = { facts: inputs.facts, kvTokensPerRank: inputs.kvTokensPerRank, gpuBudget: inputs.gpuBudget, minGpuBudget: inputs.minGpuBudget };
  const build = (mode: DeploymentMode): BranchPool => {
    const branch =
      ss.parallel_configs.length > 0
        ? pinnedBranch(ctx, mode, inputs.backends, ss.parallel_configs)
        : enumerateBranch(ctx, mode, inputs.backends);
    return { ...branch, dropped: [...inputs.droppedBackends, ...branch.dropped].sort((a, b) => BACKENDS.indexOf(a.backend) - BACKENDS.indexOf(b.backend)) };
  };
  const { branches, warnings } = planBranches(modes, build);
  return { branches, warnings, inputs };
}
