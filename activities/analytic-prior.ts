// The optimizer's analytic prior for one branch: each point's objectives as the fluid estimate
// (src/replay/fluid-estimate.ts, `spica estimate`'s pass model applied to the whole deployment) says,
// instead of a replay. The GP models the replayed results' departure from it (bayesian.ts), so a
// rough prior still steers the first rounds towards the configs the perf model favours.
//
// Cheap enough to score every acquisition candidate: resolving a worker pool (memory estimate, pass
// model) is memoized per (backend, role, per-worker shape, engine args), so a candidate costs the few
// pass-time evaluations of the estimate. Pure: the same config and point give the same numbers.
import type { SmartSearchConfig } from '../src/config/schema.js';
import { loadSystem } from '../src/hardware/systems.js';
import type { PoolDeployment } from '../src/replay/deployment.js';
import { fluidEstimate } from '../src/replay/fluid-estimate.js';
import { pdBandwidthGBps, resolveReplay } from '../src/replay/resolve.js';
import { sweptReplaySpec } from '../src/search/deploymentRecord.js';
import { goalObjectives, scoreReport } from '../src/search/goal.js';
import type { AnalyticPrior } from '../src/search/optimizer/optimizer.js';
import type { Point } from '../src/search/optimizer/space.js';
import type { BranchMaterializer } from '../src/search/study/materialize.js';
import { usedGpus } from '../src/parallel/shape.js';

/** Resolved pools and point estimates remembered per prior (each cleared when full). */
const POOL_MEMO = 4096;
const POINT_MEMO = 65_536;

/**
 * The prior of a branch, or null where the estimate does not apply: trace workloads (their arrival
 * pattern is the point of the replay) and derived (kv_load_ratio) concurrency.
 */
export function analyticPrior(config: SmartSearchConfig, materializer: BranchMaterializer): AnalyticPrior | null {
  const w = config.workload;
  if (w.trace_path !== undefined || w.kv_load_ratio !== undefined || w.isl === undefined || w.osl === undefined) return null;
  const isl = w.isl;
  const osl = w.osl;
  const objectives = goalObjectives(config.goal);
  const sla = config.goal.sla ?? {};
  const pools = new Map<string, { pool: PoolDeployment; frontendMs: number }>();
  let workload: { concurrency: number; numRequests: number } | null = null;
  const kvBytes = new Map<string, number>();
  const system = loadSystem(config.search_space.hardware_sku);

  const estimate = (point: Point): number[] | null => {
    const m = materializer.materialize(point);
    if (m.rejection || !m.candidate) return null;
    const c = m.candidate;
    const pc = c.parallel_config;
    const groups = 'prefill' in pc ? [['prefill', pc.prefill] as const, ['decode', pc.decode] as const] : [['agg', pc] as const];
    const keyOf = (role: string, g: object): string => {
      const { replicas: _r, ...shape } = g as { replicas: number };
      const args = Object.entries(c.engine).filter(([k]) => k.startsWith(`${role}_`));
      return `${c.backend}\u0001${role}\u0001${JSON.stringify(shape)}\u0001${JSON.stringify(args)}`;
    };
    const keys = groups.map(([role, g]) => keyOf(role, g));
    // Built only where needed (a pool to resolve, a disagg transfer): building and validating a full
    // ReplaySpec for every scored point was a fifth of an ask's time, on the critical path of every round.
    let built: ReturnType<typeof sweptReplaySpec> | null = null;
    const spec = () => (built ??= sweptReplaySpec(config, c, m.concurrency, null));
    let resolved = keys.map((k) => pools.get(k));
    if (resolved.some((x) => !x) || !workload || !kvBytes.has(c.backend)) {
      const full = spec(); // outside the try, as before: a spec that cannot be built fails the ask
      let r;
      try {
        r = resolveReplay(full);
      } catch {
        return null;
      }
      if (pools.size >= POOL_MEMO) pools.clear();
      const frontendMs = r.deployment.frontend?.fixedMs ?? 0;
      r.deployment.pools.forEach((pool, i) => pools.set(keys[i], { pool, frontendMs }));
      workload = { concurrency: r.concurrency ?? 1, numRequests: r.plan.numRequests };
      kvBytes.set(c.backend, r.deployment.transfer?.kvBytesPerToken ?? 0);
      resolved = keys.map((k) => pools.get(k));
    }
    const deployed = groups.map(([, g], i) => ({ ...resolved[i]!.pool, replicas: g.replicas }));
    const transfer =
      'prefill' in pc
        ? {
            bandwidthGBps: spec().backend_deployment.pd_transfer_bandwidth_gbps ?? pdBandwidthGBps(system, usedGpus(pc), deployed[0].gpusPerWorker),
            kvBytesPerToken: kvBytes.get(c.backend)!,
          }
        : null;
    const est = fluidEstimate(
      { pools: deployed, transfer, frontendMs: resolved[0]!.frontendMs, concurrency: workload.concurrency, numRequests: workload.numRequests },
      isl,
      osl,
      sla,
    );
    const scored = scoreReport(config.goal, est as unknown as Record<string, number>);
    const values = objectives.map((o) => scored.objectives[o]);
    return values.every(Number.isFinite) ? values : null;
  };
  // Acquisition sets share many points from ask to ask (the anchors' neighbourhoods, the observations).
  const known = new Map<string, number[] | null>();
  const keyOf = (p: Point): string => {
    let k = '';
    for (const name of Object.keys(p).sort()) k += `${name}=${String(p[name])}\u0001`;
    return k;
  };
  return (points) =>
    points.map((p) => {
      const k = keyOf(p);
      if (known.has(k)) return known.get(k)!;
      const v = estimate(p);
      if (known.size >= POINT_MEMO) known.clear();
      known.set(k, v);
      return v;
    });
}
