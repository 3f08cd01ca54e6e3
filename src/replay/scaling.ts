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
  /** Load of each ready worker (engine), in worker-id order: what load scaling estimates TTFT/ITL at. */
  engines: EngineTelemetry[];
  /** Cumulative prompt tokens looked up / found in the prefix cache over the run (every worker ever). */
  queryTokens: number;
  hitTokens: number;
}

/**
 * One engine's current load. Attention-DP engines report their most loaded rank for each field (the
 * pass barrier makes the slowest rank set the pace).
 */
export interface EngineTelemetry {
  worker: number;
  /** Prompt tokens still to compute (queued + in progress). */
  pendingPrefillTokens: number;
  /** Σ context of running requests past their prompt (the KV a decode pass attends over). */
  decodeKvTokens: number;
  decodeRequests: number;
  /** Requests waiting for admission and the tokens they bring. */
  waitingRequests: number;
  waitingTokens: number;
}

/** Forward-pass metrics of one engine pass (the slowest attention-DP rank's batch) and its wall time. */
export interface ForwardPassMetrics {
  prefillSeqs: number;
  /** New prompt tokens computed in the pass. */
  prefillTokens: number;
  decodeSeqs: number;
  /** Σ context tokens of the decode requests in the pass. */
  decodeKvTokens: number;
  wallMs: number;
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
  /** Optional: told about every engine pass as it starts (load scaling's forward-pass metrics). */
  observePass?(role: EngineRole, worker: number, fpm: ForwardPassMetrics): void;
  /** Optional: deterministic counters the replay report carries in its metrics. */
  stats?(): Record<string, number>;
}

/** The planner switched off: the deployment keeps its initial replicas for the whole replay. */
export class StaticController implements ScalingController {
  readonly intervalMs = Infinity;
  decide(): null {
    return null;
  }
}
