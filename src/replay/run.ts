// One replay of a resolved deployment: simulate, then turn the outcome into a ReplayReport.
import { performance } from 'node:perf_hooks';
import { simulate } from './cluster.js';
import type { ResolvedDeployment } from './deployment.js';
import { computeMetrics, SIMULATOR_VERSION, type ReplayReport, type SlaBounds } from './report.js';
import type { WorkloadPlan } from './workload/request.js';

export interface ReplayRunOptions {
  specHash: string;
  sla: SlaBounds | null;
  /** Extra deterministic metadata (candidate facts such as derived concurrency, capacities). */
  metadata?: Record<string, string | number | boolean | null>;
}

export function replayDeployment(dep: ResolvedDeployment, plan: WorkloadPlan, opts: ReplayRunOptions): ReplayReport {
  const t0 = performance.now();
  const outcome = simulate(dep, plan);
  const metrics = computeMetrics(outcome, opts.sla);
  return {
    metrics,
    metadata: {
      ...opts.metadata,
      spec_hash: opts.specHash,
      simulator_version: SIMULATOR_VERSION,
      event_count: outcome.events,
      wall_time_ms: performance.now() - t0,
    },
  };
}
