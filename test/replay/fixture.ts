// Test fixtures: an analytic perf model (exact, so tests can predict pass times) and deployment builders.
import type { EnginePerf, PassWork } from '../../src/hardware/pass.js';
import type { ResolvedDeployment, PoolDeployment } from '../../src/replay/deployment.js';
import type { EngineConfig, EngineRole } from '../../src/replay/engine/engine-config.js';
import { DEFAULT_ROUTER, type RouterConfig } from '../../src/replay/router/router.js';

export interface LinearPerfCoefs {
  overheadMs: number;
  perPrefillTokenMs: number;
  perAttnPairMs: number;
  perDecodeSeqMs: number;
  perContextTokenMs: number;
}

export const FIXTURE_PERF: LinearPerfCoefs = {
  overheadMs: 2,
  perPrefillTokenMs: 0.02,
  perAttnPairMs: 1e-6,
  perDecodeSeqMs: 0.05,
  perContextTokenMs: 2e-5,
};

/** passMs = overhead + linear terms of the PassWork (a roofline-shaped toy). */
export function linearPerf(c: LinearPerfCoefs = FIXTURE_PERF): EnginePerf & { calls: number } {
  return {
    calls: 0,
    passMs(w: PassWork): number {
      this.calls++;
      return (
        c.overheadMs +
        c.perPrefillTokenMs * w.prefillTokens +
        c.perAttnPairMs * w.prefillAttnPairs +
        c.perDecodeSeqMs * w.decodeSeqs +
        c.perContextTokenMs * w.decodeContextSum
      );
    },
  };
}

export function engine(role: EngineRole, over: Partial<EngineConfig> = {}): EngineConfig {
  return {
    role,
    backend: 'vllm',
    maxNumBatchedTokens: 8192,
    maxNumSeqs: 256,
    blockSize: 64,
    kvCapacityTokensPerRank: 1_000_000,
    enablePrefixCaching: role !== 'decode',
    chunkedPrefill: true,
    attentionDp: 1,
    nextn: 0,
    hostTier: null,
    ...over,
  };
}

export function pool(role: EngineRole, replicas: number, over: Partial<EngineConfig> = {}, perf: EnginePerf = linearPerf()): PoolDeployment {
  return { role, engine: engine(role, over), perf, gpusPerWorker: 1, replicas, startupTimeMs: 0 };
}

export function aggDeployment(replicas = 1, over: Partial<EngineConfig> = {}, router: Partial<RouterConfig> = {}): ResolvedDeployment {
  return { mode: 'agg', pools: [pool('agg', replicas, over)], router: { ...DEFAULT_ROUTER, ...router }, transfer: null, scaling: null, seed: 7 };
}

export function disaggDeployment(
  prefill: number,
  decode: number,
  bandwidthGBps: number | null,
  router: Partial<RouterConfig> = {},
  kvBytesPerToken = 131072,
): ResolvedDeployment {
  return {
    mode: 'disagg',
    pools: [pool('prefill', prefill), pool('decode', decode)],
    router: { ...DEFAULT_ROUTER, ...router },
    transfer: { bandwidthGBps, kvBytesPerToken },
    scaling: null,
    seed: 7,
  };
}
