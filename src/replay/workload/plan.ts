// Workload block (the config's `workload`) → the sessions the cluster replays.
import type { Workload } from '../../config/schema.js';
import { InputError } from '../../errors.js';
import { mooncakePlan, parseMooncake } from './mooncake.js';
import type { WorkloadPlan } from './request.js';
import { syntheticRequestCount } from './kv-load.js';
import { syntheticPlan } from './synthetic.js';

export interface PlanInputs {
  /** Trace content (trace workloads only). */
  traceText?: string;
  traceName?: string;
  /** Derived closed-loop concurrency (required for kv_load_ratio workloads). */
  concurrency: number | null;
}

export function buildWorkloadPlan(w: Workload, inputs: PlanInputs): WorkloadPlan {
  if (w.trace_path !== undefined) {
    if (inputs.traceText === undefined) throw new InputError(`trace '${w.trace_path}' was not loaded`);
    const rows = parseMooncake(inputs.traceText, w.trace_block_size, inputs.traceName ?? w.trace_path);
    return withClient(
      mooncakePlan(rows, {
        traceBlockSize: w.trace_block_size,
        arrivalSpeedupRatio: w.arrival_speedup_ratio,
        replayConcurrency: w.replay_concurrency ?? null,
      }),
      w,
    );
  }
  const isl = w.isl!;
  const osl = w.osl!;
  const ratio = w.num_request_ratio!;
  const common = {
    isl,
    osl,
    randomRangeRatio: w.random_range_ratio,
    seed: w.random_seed,
    sharedPrefixRatio: w.shared_prefix_ratio,
    numPrefixGroups: w.num_prefix_groups,
    turnsPerSession: w.turns_per_session,
    interTurnDelayMs: w.inter_turn_delay_ms,
    outputLenSpread: w.output_len_spread,
  };
  if (w.request_rate !== undefined)
    return syntheticPlan({ ...common, numRequests: syntheticRequestCount(ratio, w.request_rate) }, { kind: 'rate', requestRate: w.request_rate });
  const c = w.concurrency ?? inputs.concurrency;
  if (c === null || c === undefined || c < 1)
    throw new InputError('a kv_load_ratio workload needs the derived concurrency (none was given and it could not be derived)');
  return withClient(syntheticPlan({ ...common, numRequests: syntheticRequestCount(ratio, c) }, { kind: 'concurrency', concurrency: c }), w);
}

/** A closed loop's client re-issue latency (client.ts); open loops arrive on their own timestamps. */
function withClient(plan: WorkloadPlan, w: Workload): WorkloadPlan {
  if (plan.concurrency === null || !(w.client_reissue_ms > 0)) return plan;
  return { ...plan, client: { reissueMeanMs: w.client_reissue_ms, seed: w.random_seed } };
}
