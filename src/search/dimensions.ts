// The non-parallel search dimensions of each deployment_mode branch (seed "How the sweep uses
// these", router/planner pruning rules). Pure and deterministic: the workflow may call it.
// Single-valued knobs are pinned (never searched); dead dimensions are dropped with the rule that
// killed them, so `spica explain` can say why. The latent parallel features are merged in later by
// the parallel module through `parallelDimensions` / `withParallelDimensions`.
import type { Backend } from '../model/arch.js';
import { ENGINE_LIST_KNOBS, ENGINE_SCALAR_KNOBS, KV_ROUTER_KNOBS, OFFLOAD_WEIGHT_KNOBS, type EngineRole } from '../config/choices.js';
import { compositeLabel, enablesAnyScaling, type ScalingPolicyEntry } from '../config/composites.js';
import { filterScalingPolicies } from '../config/scalingPolicyFilter.js';
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

export const ROUTER_PREFIX = 'adapter::dynamo.router::';
export const PLANNER_PREFIX = 'adapter::dynamo.planner::';

/** Engine knobs whose values span orders of magnitude: searched on a log scale. */
const LOG_SCALE_SUFFIXES = ['_max_num_seqs', '_max_num_batched_tokens'];

const ROLES: Record<DeploymentModeName, EngineRole[]> = { agg: ['agg'], disagg: ['prefill', 'decode'] };

/** A knob's list: two or more values search it, one value pins it. */
function addListKnob(
  out: Pick<BranchDimensions, 'dimensions' | 'pinned'>,
  name: string,
  values: readonly DimensionValue[],
  kind: 'categorical' | 'discrete',
  logScale = false,
): void {
  if (values.length === 1) {
    out.pinned[name] = values[0];
    return;
  }
  out.dimensions.push({ name, kind, values: [...values], ...(logScale ? { log_scale: true } : {}) });
}

function branchFor(config: SmartSearchConfig, mode: DeploymentModeName): BranchDimensions | { skipped: string } {
  const s = config.search_space;
  const b: BranchDimensions = { deployment_mode: mode, backends: [], dimensions: [], pinned: {}, dropped: [], scaling_policies: [] };

  // Backend: searched within the branch. Dynamo replay rejects TRT-LLM disaggregation.
  b.backends = s.backend.filter((x) => !(mode === 'disagg' && x === 'trtllm'));
  if (mode === 'disagg' && s.backend.includes('trtllm'))
    b.dropped.push({ name: 'backend=trtllm', rule: 'TRT-LLM is excluded from disagg branches: Dynamo replay rejects TRT-LLM disaggregation' });
  if (b.backends.length === 0)
    return { skipped: `deployment_mode '${mode}' skipped: no backend left (backend ${JSON.stringify(s.backend)}; TRT-LLM cannot run disaggregated in replay)` };
  addListKnob(b, 'backend', b.backends, 'categorical');

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
      addListKnob(b, knob, s[knob], 'discrete', LOG_SCALE_SUFFIXES.some((x) => knob.endsWith(x)));
    for (const knob of ENGINE_SCALAR_KNOBS[role]) b.pinned[knob] = s[knob];
  }

  // Router: KV-router weights are dead without kv_router; host/disk weights without G2 offload.
  addListKnob(b, `${ROUTER_PREFIX}router_mode`, s.router_mode, 'categorical');
  const kvRouter = s.router_mode.includes('kv_router');
  for (const knob of KV_ROUTER_KNOBS) {
    const name = `${ROUTER_PREFIX}${knob}`;
    if (!kvRouter) b.dropped.push({ name, rule: 'router_mode has no kv_router: KV-router weights are ignored under round_robin' });
    else if ((OFFLOAD_WEIGHT_KNOBS as readonly string[]).includes(knob) && s.num_g2_blocks === 0)
      b.dropped.push({ name, rule: 'num_g2_blocks is 0: with host offload off there are no host/disk blocks to weight' });
    else addListKnob(b, name, s[knob], 'discrete');
  }

  // Planner: the goal decides which scaling loops may run.
  const { kept, dropped } = filterScalingPolicies(s.planner_scaling_policy, config.goal);
  b.scaling_policies = kept;
  for (const d of dropped) b.dropped.push({ name: `${PLANNER_PREFIX}scaling_policy=${d.label}`, rule: d.rule });
  addListKnob(b, `${PLANNER_PREFIX}scaling_policy`, kept.map(compositeLabel), 'categorical');
  const scales = kept.some(enablesAnyScaling);
  for (const [knob, entries] of [
    ['fpm_sampling', s.planner_fpm_sampling],
    ['load_sensitivity', s.planner_load_sensitivity],
  ] as const) {
    const name = `${PLANNER_PREFIX}${knob}`;
    if (!scales) b.dropped.push({ name, rule: 'no kept planner_scaling_policy enables scaling (planner off): FPM sampling and load sensitivity are unused' });
    else addListKnob(b, name, entries.map((e) => compositeLabel(e)), 'categorical');
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
): { branches: BranchDimensions[]; warnings: string[] } {
  const branches: BranchDimensions[] = [];
  const warnings: string[] = [];
  for (const mode of config.search_space.deployment_mode) {
    const b = branchFor(config, mode);
    if ('skipped' in b) warnings.push(b.skipped);
    else branches.push(withParallelDimensions(b, parallelDimensions?.[mode] ?? []));
  }
  return { branches, warnings };
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
