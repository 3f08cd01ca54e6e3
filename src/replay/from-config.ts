// A loaded SmartSearchConfig (+ optionally one flat candidate) → the ReplaySpec `spica replay` runs.
// One function for the CLI and the calibration/accuracy harness (src/calibration), so the replay the
// figures describe is the one a user gets. Without a candidate the config must pin every dimension.
import { InputError } from '../errors.js';
import type { SmartSearchConfig, Workload } from '../config/schema.js';
import { planParallel } from '../parallel/fromConfig.js';
import { usedGpus } from '../parallel/shape.js';
import { materializeReplaySpec, type FlatCandidateInput, type ReplaySpec } from './spec.js';
import { readTrace } from './workload/trace-file.js';

export interface ConfigReplayOptions {
  /** The flat candidate (Clarification D form); absent = the one the config pins. */
  candidate?: FlatCandidateInput;
  /** The ratio to replay when the workload gives kv_load_ratio as a range. */
  kvLoadRatio?: number;
  seed?: number;
  systemsDir?: string;
  /** Named in error messages. */
  source?: string;
}

/** The one candidate a fully pinned config describes (parallel config from the pin or a one-member pool). */
export function pinnedCandidate(config: SmartSearchConfig, opts: { systemsDir?: string } = {}): FlatCandidateInput {
  const ss = config.search_space;
  const one = <T>(name: string, list: readonly T[]): T => {
    if (list.length !== 1) throw new InputError(`the config searches ${name} (${JSON.stringify(list)}): pass --candidate`);
    return list[0];
  };
  const mode = one('deployment_mode', ss.deployment_mode);
  const backend = one('backend', ss.backend);
  let parallel = ss.parallel_configs.length === 1 ? ss.parallel_configs[0] : undefined;
  if (parallel === undefined) {
    const plan = planParallel(config, opts);
    const branch = plan.branches.find((b) => b.mode === mode);
    const members = branch?.members.filter((m) => m.backends.includes(backend)) ?? [];
    if (members.length !== 1)
      throw new InputError(`the config's ${mode} branch has ${members.length} parallel configs for ${backend}: pin one in parallel_configs or pass --candidate`);
    parallel = members[0].config;
  }
  return { deployment_mode: mode, backend, engine: {}, parallel_config: parallel, adapters: {} };
}

export function replaySpecFromConfig(config: SmartSearchConfig, o: ConfigReplayOptions = {}): ReplaySpec {
  const candidate = o.candidate ?? pinnedCandidate(config, o);
  const seed = o.seed ?? 0;
  if (!Number.isInteger(seed) || seed < 0) throw new InputError(`--seed must be a non-negative integer (got ${o.seed})`);
  let workload: Workload = config.workload;
  if (o.kvLoadRatio !== undefined) {
    const r = o.kvLoadRatio;
    if (workload.kv_load_ratio === undefined) throw new InputError('--kv-load-ratio applies only to kv_load_ratio workloads');
    if (!(r > 0 && r <= 1)) throw new InputError(`--kv-load-ratio must be in (0, 1] (got ${r})`);
    workload = { ...workload, kv_load_ratio: r };
  } else if (Array.isArray(workload.kv_load_ratio)) {
    throw new InputError(`the workload's kv_load_ratio is a range ${JSON.stringify(workload.kv_load_ratio)}: pass --kv-load-ratio R to replay one ratio`);
  }
  const tracePath = config.workload.trace_path;
  const spec = materializeReplaySpec(candidate, {
    searchSpace: config.search_space,
    workload,
    goal: config.goal,
    concurrency: null,
    traceSha256: tracePath !== undefined ? readTrace(tracePath).sha256 : null,
    seed,
  });
  // A deployment beyond the GPU budget is not a candidate of this config (a pin in parallel_configs is
  // refused when the config loads; a --candidate is checked here).
  const used = usedGpus(spec.backend_deployment.parallel_config);
  const budget = config.search_space.gpu_budget;
  if (used > budget)
    throw new InputError(`${o.candidate !== undefined ? '--candidate' : 'the pinned deployment'} uses ${used} GPUs, more than search_space.gpu_budget ${budget}${o.source ? ` of ${o.source}` : ''}: raise gpu_budget or pick a smaller shape`);
  return spec;
}
