// A deployment resolved for the simulator: per-role engine settings, perf models and replica counts.
// Built from a ReplaySpec by resolve.ts (model catalog, memory estimator, perf model); tests build it
// directly with an analytic perf fixture.
import type { EnginePerf } from '../hardware/pass.js';
import type { EngineConfig, EngineRole } from './engine/engine-config.js';
import type { FrontendConfig } from './frontend.js';
import type { RouterConfig } from './router/router.js';
import type { ScalingController } from './scaling.js';

export interface PoolDeployment {
  role: EngineRole;
  engine: EngineConfig;
  perf: EnginePerf;
  /** tp × pp × attention_dp. */
  gpusPerWorker: number;
  replicas: number;
  /** Delay before a worker added by the controller serves, ms. */
  startupTimeMs: number;
}

export interface PdTransfer {
  /** Per sending worker, GB/s; null = instantaneous. */
  bandwidthGBps: number | null;
  kvBytesPerToken: number;
}

export interface ResolvedDeployment {
  mode: 'agg' | 'disagg';
  /** agg: [agg]; disagg: [prefill, decode]. */
  pools: PoolDeployment[];
  router: RouterConfig;
  transfer: PdTransfer | null;
  scaling: ScalingController | null;
  seed: number;
  /** Per-request work in front of the engines (frontend.ts); absent = requests reach the router at their send. */
  frontend?: FrontendConfig;
}
