// The non-parallel search dimensions of each deployment_mode branch (seed "How the sweep uses
// these", router/planner pruning rules). Pure and deterministic: the workflow may call it.
// Single-valued knobs are pinned (never searched); dead dimensions are dropped with the rule that
// killed them, so `spica explain` can say why. The latent parallel features are merged in later by
// the parallel module through `parallelDimensions` / `withParallelDimensions`.
import type { Backend } from '../model/arch.js';
import { ENGINE_LIST_KNOBS, ENGINE_SCALAR_KNOBS, type EngineRole } from '../config/choices.js';
import type { ScalingPolicyEntry } from '../config/composites.js';
import type { TraceRequest } from '../forecast/window.js';
import { BUILTIN_PROVIDERS } from './providers/builtin.js';
import { PLANNER_PROVIDER, type PlannerState } from './providers/plannerProvider.js';
import { adapterPrefix, listKnob, type AdapterSearchPlan } from './providers/provider.js';
import type { SmartSearchConfig } from '../config/schema.js';
import type { Dimension, DimensionValue } from './optimizer/space.js';

export type DeploymentModeName = 'agg' | 'disagg';
// One Dimension type for the branch planner and the optimizer that searches it.
export type { Dimension, DimensionValue } from './optimizer/space.js';

export interface DroppedDimension {
  name: string;
  rule: string;
}

export interface BranchDimensions {
  deployment_mode: DeploymentModeName;
  backends: Backend[];
  dimensions: Dimension[];
  pinned: Record<string, unknown>;
  dropped: DroppedDimension[];
  /** planner_scaling_policy entries kept after goal filtering (searched or pinned). */
  scaling_policies: ScalingPolicyEntry[];
}

export const ROUTER_PREFIX = adapterPrefix('dynamo.router');
export const PLANNER_PREFIX = adapterPrefix(PLANNER_PROVIDER);

/** Every built-in provider's search plan for this config (the planner's includes the load-predictor sub-sweep). */
export function generateProviderPlans(config: SmartSearchConfig, traceRequests?: readonly TraceRequest[]): AdapterSearchPlan<unknown>[] {
  return BUILTIN_PROVIDERS.map((p) => (p.generateSearchSpace as (ctx: object) => AdapterSearchPlan<unknown>)({ config, traceRequests }));
}

/** Engine knobs whose values span orders of magnitude: searched on a log scale. */
const LOG_SCALE_SUFFIXES = ['_max_num_seqs', '_max_num_batched_tokens'];

const ROLES: Record<DeploymentModeName, EngineRole[]> = { agg: ['agg'], disagg: ['prefill', 'decode'] };

function branchFor(
  config: SmartSearchConfig,
  mode: DeploymentModeName,
  providerPlans: readonly AdapterSearchPlan<unknown>[],
): BranchDimensions | { skipped: string } {
  const s = config.search_space;
  const b: BranchDimensions = { deployment_mode: mode, backends: [], dimensions: [], pinned: {}, dropped: [], scaling_policies: [] };

  // Backend: searched within the branch. Dynamo replay rejects TRT-LLM disaggregation.
  b.backends = s.backend.filter((x) => !(mode === 'disagg' && x === 'trtllm'));
  if (mode === 'disagg' && s.backend.includes('trtllm'))
    b.dropped.push({ name: 'backend=trtllm', rule: 'TRT-LLM is excluded from disagg branches: Dynamo replay rejects TRT-LLM disaggregation' });
  if (b.backends.length === 0)
    return { skipped: `deployment_mode '${mode}' skipped: no backend left (backend ${JSON.stringify(s.backend)}; TRT-LLM cannot run disaggregated in replay)` };
  listKnob(b, 'backend', b.backends, 'categorical');

  // Context the candidate is evaluated in (never searched).
  const context: Record<string, unknown> = {
    model_name: s.model_name,
    hardware_sku: s.hardware_sku,
    gpu_budget: s.gpu_budget,
    min_gpu_budget: s.min_gpu_budget,
    min_endpoint: s.min_endpoint,
    context_length: s.context_length,
    startup_time: s.startup_time,
    aic_nextn: s.aic_nextn,
    quantization: s.quantization,
    kv_cache_dtype: s.kv_cache_dtype,
  };
  for (const [k, v] of Object.entries(context)) if (v !== null && v !== undefined) b.pinned[k] = v;

  // Engine knobs of this branch's roles only.
  for (const role of ROLES[mode]) {
    for (const knob of ENGINE_LIST_KNOBS[role])
      listKnob(b, knob, s[knob], 'discrete', LOG_SCALE_SUFFIXES.some((x) => knob.endsWith(x)));
    for (const knob of ENGINE_SCALAR_KNOBS[role]) b.pinned[knob] = s[knob];
  }

  // Router and planner knobs come from their providers, namespaced `adapter::<provider>::<param>`.
  for (const plan of providerPlans) {
    const prefix = adapterPrefix(plan.provider);
    const part = plan.branches[mode];
    for (const d of part.dimensions) b.dimensions.push({ ...d, name: `${prefix}${d.name}`, values: [...d.values] });
    for (const [k, v] of Object.entries(part.pinned)) b.pinned[`${prefix}${k}`] = v;
    for (const d of part.dropped) b.dropped.push({ name: `${prefix}${d.name}`, rule: d.rule });
    if (plan.provider === PLANNER_PROVIDER) b.scaling_policies = [...(plan.state as PlannerState).policies];
  }

  // Pareto KV-load range: a continuous dimension of the branch.
  const ratio = config.workload.kv_load_ratio;
  if (Array.isArray(ratio)) {
    if (ratio[0] === ratio[1]) b.pinned.kv_load_ratio = ratio[0];
    else b.dimensions.push({ name: 'kv_load_ratio', kind: 'continuous', values: [ratio[0], ratio[1]] });
  } else if (ratio !== undefined) {
    b.pinned.kv_load_ratio = ratio;
  }
  return b;
}

/**
 * Per deployment_mode branch (in config order), the non-parallel dimensions. A mode with no backend
 * left is skipped with a warning. `parallelDimensions` (from the parallel module) are appended to
 * the branch of their mode.
 */
export function planBranchDimensions(
  config: SmartSearchConfig,
  parallelDimensions?: Partial<Record<DeploymentModeName, Dimension[]>>,
  opts: { traceRequests?: readonly TraceRequest[] } = {},
): { branches: BranchDimensions[]; warnings: string[]; providers: AdapterSearchPlan<unknown>[] } {
  const branches: BranchDimensions[] = [];
  const warnings: string[] = [];
  const providers = generateProviderPlans(config, opts.traceRequests);
  for (const mode of config.search_space.deployment_mode) {
    const b = branchFor(config, mode, providers);
    if ('skipped' in b) warnings.push(b.skipped);
    else branches.push(withParallelDimensions(b, parallelDimensions?.[mode] ?? []));
  }
  return { branches, warnings, providers };
}

/** Merge the latent parallel features into a branch; single-valued ones are pinned, as the seed says. */
export function withParallelDimensions(branch: BranchDimensions, parallel: readonly Dimension[]): BranchDimensions {
  if (parallel.length === 0) return branch;
  const out: BranchDimensions = { ...branch, dimensions: [...branch.dimensions], pinned: { ...branch.pinned } };
  for (const d of parallel) {
    if (out.dimensions.some((x) => x.name === d.name)) throw new Error(`duplicate dimension '${d.name}' in branch ${branch.deployment_mode}`);
    if (d.kind !== 'continuous' && d.values.length === 1) out.pinned[d.name] = d.values[0];
    else if (d.kind === 'continuous' && d.values[0] === d.values[1]) out.pinned[d.name] = d.values[0];
    else out.dimensions.push({ ...d, values: [...d.values] });
  }
  return out;
}
