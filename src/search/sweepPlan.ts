// Planning a sweep (the I/O edge of the search core): resolve model and SKU, build each branch's
// parallel pool and latent features, merge them with the knob dimensions, run the load-predictor
// sub-sweep, and return one BranchStudyPlan + materializer per viable deployment_mode.
import type { SmartSearchConfig } from '../config/schema.js';
import type { LoadPredictorSweepResult } from '../forecast/subSweep.js';
import type { TraceRequest } from '../forecast/window.js';
import { estimateMemory } from '../model/memory.js';
import { planParallel, type ParallelInputs, type ParallelSourceOptions } from '../parallel/fromConfig.js';
import { latentSpace, type LatentFeature } from '../parallel/latent.js';
import type { BranchPool } from '../parallel/pool.js';
import type { WorkerGroup } from '../parallel/shape.js';
import { configHash } from '../config/config-hash.js';
import { planBranchDimensions, type BranchDimensions, type Dimension } from './dimensions.js';
import { goalObjectives, OBJECTIVE_DIRECTION, type GoalSpec } from './goal.js';
import { requireCompatible, type RunnerCapabilities } from './providers/capabilities.js';
import { PLANNER_PROVIDER, type PlannerState } from './providers/plannerProvider.js';
import { REPLAY_SPEC_VERSION } from './study/plan.js';
import type { Point } from './optimizer/space.js';
import type { FlatCandidate } from './sweepResult.js';
import { BranchMaterializer, type CandidateKvTokens } from './study/materialize.js';
import type { BranchStudyPlan, StudySettings } from './study/plan.js';

export interface SweepPlanOptions extends ParallelSourceOptions {
  /** The replay runner's capabilities: checked against every branch before the first trial. */
  capabilities?: RunnerCapabilities;
  /** The trace's requests (arrival ms from 0, isl, osl) for the load-predictor sub-sweep; absent for synthetic workloads. */
  traceRequests?: readonly TraceRequest[];
}

export interface PlannedBranch {
  plan: BranchStudyPlan;
  materializer: BranchMaterializer;
  pool: BranchPool;
}

export interface SweepPlan {
  config: SmartSearchConfig;
  config_hash: string;
  branches: PlannedBranch[];
  load_predictor: LoadPredictorSweepResult;
  warnings: string[];
}

export { configHash };

function toDimension(f: LatentFeature): Dimension {
  if (f.kind === 'continuous') return { name: f.name, kind: 'continuous', values: [f.range[0], f.range[1]] };
  if (f.kind === 'discrete') return { name: f.name, kind: 'discrete', values: [...f.values], log_scale: true };
  return { name: f.name, kind: 'categorical', values: [...f.values] };
}

/** Geometric centre of a sorted numeric list (closest in log space to sqrt(min·max), ties to the smaller). */
function centre(values: readonly number[]): number {
  const positive = values.filter((v) => v > 0);
  if (positive.length === 0) return values[0];
  const target = Math.log(Math.sqrt(positive[0] * positive[positive.length - 1]));
  let best = positive[0];
  for (const v of positive) if (Math.abs(Math.log(v) - target) < Math.abs(Math.log(best) - target) - 1e-12) best = v;
  return best;
}

/** The seed's first trial: latent features at their defaults; other knobs at their first/centre value. */
function initialPoint(dims: readonly Dimension[], latent: LatentFeature[]): Point {
  const p: Point = {};
  for (const d of dims) {
    const f = latent.find((x) => x.name === d.name);
    if (f) p[d.name] = f.default;
    else if (d.kind === 'continuous') p[d.name] = d.values[1] as number; // kv_load_ratio: full load first
    else if (d.kind === 'discrete' && d.values.every((v) => typeof v === 'number')) p[d.name] = centre(d.values as number[]);
    else p[d.name] = d.values[0];
  }
  return p;
}

function candidateKvTokens(config: SmartSearchConfig, inputs: ParallelInputs): CandidateKvTokens {
  const ss = config.search_space;
  const cache = new Map<string, number>();
  return (c: FlatCandidate) => {
    const role = c.deployment_mode === 'disagg' ? 'decode' : 'agg';
    const group = ('prefill' in c.parallel_config ? c.parallel_config.decode : c.parallel_config) as WorkerGroup;
    const tokens = c.engine[`${role}_max_num_batched_tokens`] as number;
    const seqs = c.engine[`${role}_max_num_seqs`] as number;
    const key = `${c.backend}/${role}/${group.tp},${group.attention_dp},${group.moe_tp},${group.moe_ep},${group.pp}/${tokens}/${seqs}`;
    let v = cache.get(key);
    if (v === undefined) {
      v = estimateMemory({
        model: inputs.model,
        system: inputs.system,
        shape: group,
        backend: c.backend,
        weightQuant: inputs.weightQuant,
        kvDtype: inputs.kvDtypeOf(c.backend),
        gpuMemoryUtilization: role === 'agg' ? ss.agg_gpu_memory_utilization : ss.decode_gpu_memory_utilization,
        maxNumBatchedTokens: tokens,
        maxNumSeqs: seqs,
      }).kvCapacityTokensPerRank;
      cache.set(key, v);
    }
    return v;
  };
}

export function studySettings(config: SmartSearchConfig): StudySettings {
  const s = config.sweep;
  return {
    max_rounds: s.max_rounds,
    candidates_per_round: s.candidates_per_round ?? s.parallel_evals,
    parallel_evals: s.parallel_evals,
    policy: s.policy,
    algorithm: s.algorithm,
    seed: s.seed,
  };
}

/** Each branch pool's latent parallel features, as features and as optimizer dimensions. */
export function latentDimensions(pools: readonly BranchPool[]): {
  features: Partial<Record<'agg' | 'disagg', LatentFeature[]>>;
  dimensions: Partial<Record<'agg' | 'disagg', Dimension[]>>;
} {
  const features: Partial<Record<'agg' | 'disagg', LatentFeature[]>> = {};
  const dimensions: Partial<Record<'agg' | 'disagg', Dimension[]>> = {};
  for (const pool of pools) {
    const space = latentSpace(pool, pool.mode);
    features[pool.mode] = space.features;
    dimensions[pool.mode] = space.features.map(toDimension);
  }
  return { features, dimensions };
}

export function planSweep(config: SmartSearchConfig, opts: SweepPlanOptions = {}): SweepPlan {
  const parallel = planParallel(config, opts);
  const { features: latentByMode, dimensions: parallelDims } = latentDimensions(parallel.branches);
  const dims = planBranchDimensions(config, parallelDims, { traceRequests: opts.traceRequests });
  const planner = dims.providers.find((p) => p.provider === PLANNER_PROVIDER)!.state as PlannerState;
  const goal: GoalSpec = config.goal;
  const objectives = goalObjectives(goal).map((name) => ({ name, direction: OBJECTIVE_DIRECTION[name] }));
  const settings = studySettings(config);
  const kvTokens = candidateKvTokens(config, parallel.inputs);

  const branches: PlannedBranch[] = [];
  const warnings = [...parallel.warnings, ...dims.warnings];
  for (const b of dims.branches) {
    const pool = parallel.branches.find((p) => p.mode === b.deployment_mode);
    if (!pool) continue; // no viable parallel config for this mode: planParallel already warned
    const branch: BranchDimensions = { ...b, backends: b.backends.filter((x) => pool.backends.includes(x)) };
    if (branch.backends.length === 0) {
      warnings.push(`deployment_mode '${b.deployment_mode}' skipped: none of its backends has a viable parallel config`);
      continue;
    }
    // Backends without a perf database or a viable config leave the backend dimension.
    branch.dimensions = branch.dimensions
      .map((d) => (d.name === 'backend' ? { ...d, values: d.values.filter((v) => branch.backends.includes(v as never)) } : d))
      .filter((d) => {
        if (d.name !== 'backend' || d.values.length > 1) return true;
        branch.pinned = { ...branch.pinned, backend: d.values[0] };
        return false;
      });
    if (!branch.dimensions.some((d) => d.name === 'backend') && branch.pinned.backend === undefined) branch.pinned = { ...branch.pinned, backend: branch.backends[0] };
    if (branch.pinned.backend !== undefined && !branch.backends.includes(branch.pinned.backend as never)) branch.pinned = { ...branch.pinned, backend: branch.backends[0] };

    const materializer = new BranchMaterializer({
      config,
      branch,
      pool,
      providers: dims.providers,
      kvTokensPerRank: kvTokens,
    });
    const plan: BranchStudyPlan = {
      deployment_mode: branch.deployment_mode,
      backends: branch.backends,
      dimensions: branch.dimensions,
      initial_point: initialPoint(branch.dimensions, latentByMode[branch.deployment_mode] ?? []),
      thorough_size: settings.policy === 'thorough' ? materializer.thoroughSize() : null,
      objectives,
      goal,
      settings,
      analytic_prior: true,
      shape_dimensions: branch.dimensions
        .filter((d) => d.name === 'backend' || (latentByMode[branch.deployment_mode] ?? []).some((f) => f.name === d.name))
        .map((d) => d.name),
    };
    branches.push({ plan, materializer, pool });
  }
  if (opts.capabilities) {
    requireCompatible(opts.capabilities, {
      replay_spec_api_version: REPLAY_SPEC_VERSION,
      backend_topologies: branches.flatMap((b) => b.plan.backends.map((be) => [be, b.plan.deployment_mode] as [string, string])),
      hooks: dims.providers.flatMap((p) => p.potential_runtime_hooks),
    });
  }
  const loadPredictor = planner.loadPredictor ?? { reason: 'forecast_loss' as const, per_interval: [] };
  return { config, config_hash: configHash(config), branches, load_predictor: loadPredictor, warnings };
}
