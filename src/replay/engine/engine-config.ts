// Resolved settings of one engine role (agg, prefill or decode) as the scheduler uses them.
import type { Backend } from '../../model/arch.js';
import type { HostTierConfig } from './host-tier.js';

export type EngineRole = 'agg' | 'prefill' | 'decode';

export interface EngineConfig {
  role: EngineRole;
  backend: Backend;
  /** Token budget per pass (∞ when unset). */
  maxNumBatchedTokens: number;
  maxNumSeqs: number;
  blockSize: number;
  /** KV capacity of one attention rank, tokens (from the memory estimator). */
  kvCapacityTokensPerRank: number;
  enablePrefixCaching: boolean;
  /** Chunked prefill (vLLM V1 default on); off ⇒ a prompt larger than the remaining budget waits. */
  chunkedPrefill: boolean;
  attentionDp: number;
  /** MTP depth (0 = off). */
  nextn: number;
  /** G2 host offload, or null when num_g2_blocks is 0. */
  hostTier: HostTierConfig | null;
  /** Multiplier on every pass time from the perf model (replay calibration); absent = 1. */
  passTimeScale?: number;
  /**
   * Multiplier on the prefill part of every pass (replay calibration, `overhead.replay.prefillScale`),
   * applied before passTimeScale; absent = 1.
   */
  prefillTimeScale?: number;
  /**
   * Engine passes a request waits on this rank, from reaching it to its first scheduling, while the
   * rank is busy (replay calibration, `overhead.replay.admissionLagPasses`; absent = 0). An idle rank
   * runs no passes and takes the request at once. Fitted, see coefficients.ts.
   */
  admissionLagPasses?: number;
}

/**
 * Per-position draft acceptance for MTP. With depth n a decode step emits on average
 * Σ_{i=0..n} a^i tokens (a = 0.7: 1.7 at n=1, 2.19 at n=2), the figure DeepSeek reports for its MTP head.
 */
export const MTP_ACCEPTANCE = 0.7;

export function mtpTokensPerStep(nextn: number): number {
  let s = 0;
  for (let i = 0; i <= nextn; i++) s += MTP_ACCEPTANCE ** i;
  return s;
}
