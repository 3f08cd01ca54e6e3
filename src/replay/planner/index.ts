// The planner provider for replay: builds the controller a ReplaySpec's `dynamo.planner` config asks
// for (resolve.ts uses it as the default `controllerFor`), or null when no scaling loop is active.
import type { PoolDeployment } from '../deployment.js';
import { PlannerController } from './controller.js';
import { plannerSettingsOf, type PlannerGoal, type PlannerSettings } from './settings.js';

export { PlannerController, type PlannerPool, type ThroughputDecision } from './controller.js';
export { aggEngineRps, decodeEngineRps, engineRps, prefillEngineRps, type CapacityQuery } from './engine-capacity.js';
export { fitPassTime, FpmWindow, predictPassMs, type FpmKind, type PassTimeModel } from './fpm-regression.js';
export { clampToGpuBudget, type RoleCount } from './gpu-budget.js';
export { estimateItlMs, estimateTtftMs, loadScalingStep, type EngineEstimate, type LoadSla } from './load-scaling.js';
export { DEFAULT_LOAD_SLA, PlannerAdapterConfigSchema, plannerSettingsOf, type PlannerAdapterConfig, type PlannerGoal, type PlannerSettings } from './settings.js';

/** Why a scaling policy that asks for scaling runs static, or null when a loop is active. */
export function plannerInactiveReason(s: PlannerSettings): string | null {
  if (s.throughputScaling || s.loadScaling) return null;
  if (!s.requested.throughput && !s.requested.load) return 'the policy enables no scaling loop';
  return 'throughput scaling needs optimization_target sla (a goodput goal with a ttft_ms + itl_ms SLA)';
}

/** The real planner for a spec's planner config and resolved pools; null when it would never act. */
export function createPlannerController(config: Record<string, unknown>, goal: PlannerGoal, pools: readonly PoolDeployment[]): PlannerController | null {
  const settings = plannerSettingsOf(config, goal);
  if (plannerInactiveReason(settings) !== null) return null;
  return new PlannerController(
    settings,
    pools.map((p) => ({ role: p.role, engine: p.engine, perf: p.perf, gpusPerWorker: p.gpusPerWorker, replicas: p.replicas })),
  );
}
