// The provider interface of the sweeper architecture (seed "Provider Preparation"): a provider owns
// one feature's search space and turns a selection into replay configuration. The sweeper namespaces
// its parameters as `adapter::<provider>::<param>` so providers never collide with core knobs.
import type { SmartSearchConfig } from '../../config/schema.js';
import type { Dimension, DimensionValue } from '../optimizer/space.js';

export type BranchMode = 'agg' | 'disagg';

export interface SweepContext {
  config: SmartSearchConfig;
}

export interface HookCapability {
  provider: string;
  kind: string;
  api_version: number;
}

export interface RuntimeHookSpec extends HookCapability {
  config: Record<string, unknown>;
}

/** One branch's share of a provider's search space, with local (un-namespaced) parameter names. */
export interface ProviderBranchSpace {
  dimensions: Dimension[];
  pinned: Record<string, DimensionValue>;
  dropped: { name: string; rule: string }[];
}

export interface AdapterSearchPlan<State = unknown> {
  provider: string;
  branches: Record<BranchMode, ProviderBranchSpace>;
  /** Prepared state reused by materializeReplay (e.g. composite label → entry). */
  state: State;
  diagnostics: string[];
  /** Hooks a candidate of this provider may ask the runner for. */
  potential_runtime_hooks: HookCapability[];
}

export interface CandidateContext {
  deployment_mode: BranchMode;
  backend: string;
  config: SmartSearchConfig;
}

export interface AdapterReplaySpec {
  config: Record<string, unknown>;
  runtime_hooks: RuntimeHookSpec[];
}

export interface SweepConfigProvider<State = unknown> {
  readonly name: string;
  generateSearchSpace(ctx: SweepContext): AdapterSearchPlan<State>;
  /** `selection`: this provider's local parameter values (searched or pinned) for one candidate. */
  materializeReplay(plan: AdapterSearchPlan<State>, selection: Record<string, DimensionValue>, ctx: CandidateContext): AdapterReplaySpec;
}

export function adapterPrefix(provider: string): string {
  return `adapter::${provider}::`;
}

/** A knob list: two or more values search it, one value pins it. */
export function listKnob(
  out: { dimensions: Dimension[]; pinned: Record<string, unknown> },
  name: string,
  values: readonly DimensionValue[],
  kind: 'categorical' | 'discrete',
  logScale = false,
): void {
  if (values.length === 1) out.pinned[name] = values[0];
  else out.dimensions.push({ name, kind, values: [...values], ...(logScale ? { log_scale: true } : {}) });
}

export function emptyBranchSpace(): ProviderBranchSpace {
  return { dimensions: [], pinned: {}, dropped: [] };
}
