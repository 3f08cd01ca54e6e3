// The contract between the simulator and the performance model: what one engine pass computes.

/**
 * The work of one engine pass on one attention rank (tp GPUs). The simulator aggregates the batch it
 * formed; the perf model turns it into milliseconds. For attention_dp > 1 the simulator passes the
 * slowest rank's work and the perf model accounts for MoE tokens arriving from all DP ranks.
 */
export interface PassWork {
  /** Requests that compute prompt tokens in this pass (prefill or a prefill chunk). */
  prefillSeqs: number;
  /** New (not cached) prompt tokens computed, summed over those requests. */
  prefillTokens: number;
  /**
   * Causal attention work of the prefill part: Σ newTokens × (alreadyInKv + newTokens / 2),
   * i.e. query-key pairs. Lets prefix reuse and chunking cost what they really cost.
   */
  prefillAttnPairs: number;
  /** Requests that emit one decode token in this pass. */
  decodeSeqs: number;
  /** Σ context length (tokens already in the KV cache) over the decode requests. */
  decodeContextSum: number;
}

export const EMPTY_PASS: PassWork = Object.freeze({
  prefillSeqs: 0,
  prefillTokens: 0,
  prefillAttnPairs: 0,
  decodeSeqs: 0,
  decodeContextSum: 0,
});

/** A perf model bound to one (model, system, backend, quantization, parallel shape). */
export interface EnginePerf {
  /** Wall time of one engine pass in milliseconds (includes the backend's per-pass overhead). */
  passMs(work: PassWork): number;
  /**
   * The pass's wall time with its prefill part — the prefill attention plus the prefill tokens' share
   * of the token-parallel ops — taken `prefillScale` times (replay calibration: prefill passes run
   * eagerly, outside the CUDA graphs the decode-fitted kernel scale describes). Absent: the simulator
   * cannot scale prefill apart and uses passMs.
   */
  prefillScaledPassMs?(work: PassWork, prefillScale: number): number;
}
