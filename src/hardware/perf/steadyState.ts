// Steady-state figures of one deployment at a fixed closed-loop concurrency (what `spica estimate`
// prints). Memory comes from src/model/memory.ts; latencies from the calibrated engine pass model.
//
// Steady-state model (in-flight batching, chunked prefill with a token budget, per attention-DP rank):
// * b = ⌈concurrency / attention_dp⌉ requests live on the rank; each alternates one prefill and
//   osl−1 decode tokens, so over one request lifetime each other request is prefilled once.
// * A request's prefill runs in ⌈isl / budget⌉ "mixed" passes, each carrying a prompt chunk plus one
//   decode token for the other b−1 requests (context isl + osl/2, the mid-generation average).
// * Pure decode passes carry b decode tokens at context isl + osl/2.
// * TPOT = mean pass time over a request's osl−1 decode passes, of which
//   min(osl−1, f·(b−1)·chunks) are mixed; f = `prefillInterleave` (1 for a perfectly staggered loop;
//   fitted per backend from e2e data, whose benchmarks interleave fewer prefills than that).
// * TTFT = fixed request overhead (`ttftFixedMs`: admission, tokenisation, first-token streaming)
//   + own prefill (chunks mixed passes) + half a decode pass in flight on arrival
//   + w·(b−1) other prefills queued ahead; w = `ttftQueue`; both fitted per backend from e2e.
import type { Backend, KvCacheDtype, ModelArch, WeightQuant } from '../../model/arch.js';
import { estimateMemory, kvBytesPerToken, maxConcurrency, DEFAULT_MAX_NUM_BATCHED_TOKENS } from '../../model/memory.js';
import type { ParallelShape } from '../../parallel/shape.js';
import type { SystemSpec } from '../system.js';
import type { Overhead } from './coefficients.js';
import { createEnginePerf, type DetailedEnginePerf } from './engine.js';

export interface SteadyStateInput {
  model: ModelArch;
  system: SystemSpec;
  backend: Backend;
  shape: ParallelShape;
  quant: WeightQuant;
  moeQuant?: WeightQuant;
  kvDtype: KvCacheDtype;
  isl: number;
  osl: number;
  /** Closed-loop concurrency of the worker (all attention-DP ranks together). */
  batch: number;
  nextn?: number;
  /** Prefill token budget per pass (vLLM max_num_batched_tokens). */
  maxNumBatchedTokens?: number;
  coefficientsDir?: string;
  /** Override the fitted backend overheads (calibration evaluates kernels-only this way). */
  overhead?: Overhead;
}

export interface SteadyStateEstimate {
  weights_bytes_per_gpu: number;
  kv_bytes_per_token: number;
  kv_capacity_tokens_per_rank: number;
  max_concurrency: number;
  prefill_ms: number;
  decode_step_ms: number;
  ttft_ms: number;
  tpot_ms: number;
}

/** The pass times the steady-state figures are built from (ms, overheads included). */
export interface SteadyStateParts {
  /** Requests per attention-DP rank. */
  b: number;
  chunks: number;
  /** Fraction of decode passes that would be mixed if every other prefill interleaved. */
  mixedFraction: number;
  decodeMs: number;
  mixedMs: number;
  /** One request's whole prefill alone (all chunks). */
  prefillOneMs: number;
  /** b requests' prompts in one pass (the `prefill_ms` figure). */
  prefillBatchMs: number;
}

export function steadyStateParts(perf: DetailedEnginePerf, input: Pick<SteadyStateInput, 'isl' | 'osl' | 'batch' | 'shape' | 'maxNumBatchedTokens'>): SteadyStateParts {
  const { isl, osl } = input;
  const b = Math.max(1, Math.ceil(input.batch / input.shape.attention_dp));
  const ctx = isl + osl / 2;
  const budget = input.maxNumBatchedTokens ?? DEFAULT_MAX_NUM_BATCHED_TOKENS;
  const chunks = Math.max(1, Math.ceil(isl / budget));
  const chunk = isl / chunks;
  // The mean chunk sees half of the rest of the prompt already cached.
  const meanPairs = chunk * ((isl - chunk) / 2 + chunk / 2);
  const steps = Math.max(1, osl - 1);
  return {
    b,
    chunks,
    mixedFraction: Math.min(steps, (b - 1) * chunks) / steps,
    decodeMs: perf.passMs({ prefillSeqs: 0, prefillTokens: 0, prefillAttnPairs: 0, decodeSeqs: b, decodeContextSum: b * ctx }),
    mixedMs: perf.passMs({ prefillSeqs: 1, prefillTokens: chunk, prefillAttnPairs: meanPairs, decodeSeqs: b - 1, decodeContextSum: (b - 1) * ctx }),
    prefillOneMs: chunks * perf.passMs({ prefillSeqs: 1, prefillTokens: chunk, prefillAttnPairs: meanPairs, decodeSeqs: 0, decodeContextSum: 0 }),
    prefillBatchMs: perf.passMs({ prefillSeqs: b, prefillTokens: b * isl, prefillAttnPairs: (b * isl * isl) / 2, decodeSeqs: 0, decodeContextSum: 0 }),
  };
}

/** TTFT / TPOT from the parts and the steady-state factors (see the module comment). */
export function combineSteadyState(p: SteadyStateParts, f: number, w: number, fixedMs: number): { ttftMs: number; tpotMs: number } {
  const tpot = p.decodeMs + f * p.mixedFraction * (p.mixedMs - p.decodeMs);
  const ttft = fixedMs + p.chunks * p.mixedMs + 0.5 * p.decodeMs + w * (p.b - 1) * p.prefillOneMs;
  return { ttftMs: ttft, tpotMs: tpot };
}

export function estimateSteadyState(input: SteadyStateInput): SteadyStateEstimate {
  const { model, system, backend, shape, kvDtype, isl, osl } = input;
  const mem = estimateMemory({ model, system, shape, backend, weightQuant: input.quant, moeQuant: input.moeQuant, kvDtype });
  const perf = createEnginePerf({ model, system, backend, shape, quant: input.quant, moeQuant: input.moeQuant, kvDtype, nextn: input.nextn, coefficientsDir: input.coefficientsDir, overhead: input.overhead });
  const parts = steadyStateParts(perf, input);
  const { ttftMs, tpotMs } = combineSteadyState(parts, perf.overhead.prefillInterleave, perf.overhead.ttftQueue, perf.overhead.ttftFixedMs);
  return {
    weights_bytes_per_gpu: Math.round(mem.weightsBytesPerGpu),
    kv_bytes_per_token: kvBytesPerToken(model, kvDtype),
    kv_capacity_tokens_per_rank: mem.kvCapacityTokensPerRank,
    max_concurrency: maxConcurrency(mem, shape.attention_dp, isl, osl),
    prefill_ms: parts.prefillBatchMs,
    decode_step_ms: parts.decodeMs,
    ttft_ms: ttftMs,
    tpot_ms: tpotMs,
  };
}
