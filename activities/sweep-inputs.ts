// The sweep's file inputs, read at the activity edge: the trace's sha256 (ReplaySpecs carry path +
// hash, never content) and its requests for the load-predictor sub-sweep. Synthetic workloads have
// neither. The plan is rebuilt per worker process and cached by config hash (materialization and
// hydration need the heavy BranchMaterializer, which never travels through workflow history).
import type { SmartSearchConfig } from '../src/config/schema.js';
import type { TraceRequest } from '../src/forecast/window.js';
import { REPLAY_RUNNER_CAPABILITIES } from '../src/replay/capabilities.js';
import { parseMooncake } from '../src/replay/workload/mooncake.js';
import { readTrace } from '../src/replay/workload/trace-file.js';
import { configHash, planSweep, type SweepPlan } from '../src/search/sweepPlan.js';

export interface TraceInputs {
  traceSha256: string | null;
  traceRequests?: TraceRequest[];
}

export function traceInputsFor(config: SmartSearchConfig): TraceInputs {
  const tracePath = config.workload.trace_path;
  if (tracePath === undefined) return { traceSha256: null };
  const trace = readTrace(tracePath);
  const rows = parseMooncake(trace.text, config.workload.trace_block_size, tracePath);
  // Session follow-ups without a timestamp arrive at their predecessor's time (good enough for load windows).
  let last = 0;
  const arrivals = rows.map((r) => (last = r.timestampMs ?? last));
  const t0 = arrivals.length > 0 ? Math.min(...arrivals) : 0;
  // The replay divides arrival gaps by arrival_speedup_ratio; the planner's windows see that clock.
  const speedup = config.workload.arrival_speedup_ratio;
  const traceRequests = rows.map((r, i) => ({ arrival_ms: (arrivals[i] - t0) / speedup, isl: r.inputLength, osl: r.outputLength }));
  return { traceSha256: trace.sha256, traceRequests };
}

const PLAN_CACHE_SIZE = 4;
const plans = new Map<string, { plan: SweepPlan; trace: TraceInputs }>();

/** planSweep for this config (checked against this worker's replay runner), cached per process by config hash (most recently used kept). */
export function cachedSweepPlan(config: SmartSearchConfig): { plan: SweepPlan; trace: TraceInputs } {
  const key = configHash(config);
  const hit = plans.get(key);
  if (hit) {
    plans.delete(key);
    plans.set(key, hit);
    return hit;
  }
  const trace = traceInputsFor(config);
  const entry = { plan: planSweep(config, { traceRequests: trace.traceRequests, capabilities: REPLAY_RUNNER_CAPABILITIES }), trace };
  plans.set(key, entry);
  while (plans.size > PLAN_CACHE_SIZE) plans.delete(plans.keys().next().value!);
  return entry;
}
