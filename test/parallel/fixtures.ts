// Synthetic model/hardware facts for the parallel tests: small numbers whose outcomes are easy to reason about.
import type { KvTokensPerRank, ShapeFacts } from '../../src/parallel/legality.js';
import type { DeploymentMode, ParallelConfig, ParallelShape, WorkerGroup } from '../../src/parallel/shape.js';
import { compareConfigs, type ParallelPool, type PoolMember } from '../../src/parallel/pool.js';
import type { Backend } from '../../src/model/arch.js';

const GB = 1024 ** 3;

export const denseFacts: ShapeFacts = {
  isMoe: false,
  maxSeqLen: 8192,
  gpusPerNode: 8,
  vramPerGpuBytes: 80 * GB,
  weightBytes: 16 * GB,
};

export const moeFacts: ShapeFacts = { ...denseFacts, isMoe: true, weightBytes: 200 * GB };

/** A MoE so large that a node cannot hold it twice: multi-node wide-EP. */
export const hugeMoeFacts: ShapeFacts = { ...moeFacts, weightBytes: 700 * GB };

/** Plenty of KV everywhere. */
export const ampleKv: KvTokensPerRank = (s) => 100_000 * s.tp;

/** KV per rank grows with tp; tp = 1 ranks hold fewer tokens than max_seq_len 8192. */
export const tpBoundKv: KvTokensPerRank = (s) => 6_000 * s.tp;

export function shape(p: Partial<ParallelShape>): ParallelShape {
  return { tp: 1, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 1, ...p };
}

export function group(p: Partial<WorkerGroup>): WorkerGroup {
  return { tp: 1, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 1, replicas: 1, ...p };
}

/** Deterministic PRNG (mulberry32) for the property tests. */
export { mulberry32 as prng } from '../support/mulberry32.js';

/** A hand-built pool (members sorted like enumerated pools); `backends[i]` defaults to ['vllm']. */
export function poolOf(mode: DeploymentMode, gpuBudget: number, isMoe: boolean, configs: ParallelConfig[], backends: Backend[][] = []): ParallelPool {
  const members = configs.map(
    (config, i) =>
      ({
        config,
        backends: backends[i] ?? ['vllm'],
        kv_capacity_tokens_per_rank: 'prefill' in config ? { prefill: 1e6, decode: 1e6 } : 1e6,
      }) as PoolMember,
  );
  members.sort((a, b) => compareConfigs(a.config, b.config));
  return { mode, gpuBudget, isMoe, members };
}

