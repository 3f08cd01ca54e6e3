// The planner seam: a controller called on its interval with cluster telemetry, returning the replica
// count it wants per role. The cluster starts new workers (ready after startup_time) and drains removed
// ones (no new requests; stopped once empty). The real Dynamo-planner port plugs in here.
import type { EngineRole } from './engine/engine-config.js';

export interface RoleTelemetry {
  role: EngineRole;
  /** Workers serving (ready), starting, and draining. */
  ready: number;
  starting: number;
  draining: number;
  gpusPerWorker: number;
  /** Requests queued or running on the role's ready workers. */
  activeRequests: number;
  waitingRequests: number;
  pendingPrefillTokens: number;
  /** Fraction of the role's KV blocks referenced by live requests, 0..1. */
  kvUtilization: number;
}

export interface ClusterTelemetry {
  nowMs: number;
  /** Window since the previous call. */
  windowMs: number;
  /** Requests that arrived / completed during the window, with their mean ISL/OSL. */
  arrivals: number;
  completions: number;
  meanIsl: number;
  meanOsl: number;
  /** Mean TTFT and ITL of requests completed in the window (NaN when none). */
  meanTtftMs: number;
  meanItlMs: number;
  roles: RoleTelemetry[];
}

export interface ScalingController {
  /** Call period in ms (Infinity = never called). */
  readonly intervalMs: number;
  /** Desired replicas per role; roles left out (or null) keep their count. */
  decide(t: ClusterTelemetry): Partial<Record<EngineRole, number>> | null;
}

/** The planner switched off: the deployment keeps its initial replicas for the whole replay. */
export class StaticController implements ScalingController {
  readonly intervalMs = Infinity;
  decide(): null {
    return null;
  }
}
