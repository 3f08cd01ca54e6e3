// Steady-state figures of one deployment at a fixed closed-loop concurrency (what `spica estimate`
// prints). Memory comes from src/model/memory.ts; latencies from the calibrated engine pass model.
//
// Model (in-flight batching, chunked prefill with a token budget, per attention-DP rank):
// * b = ⌈concurrency / attention_dp⌉ requests live on the rank; each alternates one prefill and
//   osl−1 decode tokens, so over one request lifetime each other request is prefilled once.
// * A request's prefill runs in ⌈isl / budget⌉ "mixed" passes, each carrying a prompt chunk plus one
//   decode token for the other b−1 requests (context isl + osl/2, the mid-generation average).
// * Pure decode passes carry b decode tokens at context isl + osl/2.
// * TPOT = mean pass time over a request's osl−1 decode passes, of which
//   min(osl−1, f·(b−1)·chunks) are mixed; f = `prefillInterleave` (1 for a perfectly staggered loop;
//   fitted per backend: in the benchmark's first round a request's decode only overlaps the prefills
//   of the clients admitted after it).
// * TTFT: the benchmark starts every client at t = 0, so a share s = `burstShare` of the requests
//   (1 / requests per client) arrive in one burst and wait for the burst's prefills ahead of them:
//   the b prompts are served budget tokens per pass, request j gets its first token after
//   ⌈j·isl / budget⌉ such passes. The other requests arrive staggered (a closed loop keeps the
//   order the burst gave it) and see only their own prefill plus half a decode pass in flight.
//   A benchmark run of at least N = `burstRequests` requests holds one burst of `concurrency` of them,
//   so s = min(`burstShare`, concurrency / N) (N = 0: s = `burstShare`): the burst weighs more the
//   higher the concurrency (with a constant share the signed TTFT error fell from about +30 % at 4–8
//   clients to −15…−35 % at 128+ on b200 sglang and vllm). The fit may pick N = 0.
//   TTFT = `ttftFixedMs` (admission, tokenisation, first-token streaming)
//          + s · burst wait + (1 − s) · (own prefill chunks as mixed passes + ½ decode pass),
//   with the prefill work of those passes × `prefillScale` (in-engine prefill against the kernel tables).
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
  /** Closed-loop clients of the whole worker (the benchmark's concurrency). */
  concurrency: number;
  chunks: number;
  /** Fraction of decode passes that would be mixed if every other prefill interleaved. */
  mixedFraction: number;
  decodeMs: number;
  mixedMs: number;
  /** One request's whole prefill alone (all chunks). */
  prefillOneMs: number;
  /** b requests' prompts in one pass (the `prefill_ms` figure). */
  prefillBatchMs: number;
  /** One pass of the initial burst: min(budget, b·isl) prompt tokens. */
  burstPassMs: number;
  /** Mean number of burst passes before a request of the burst has its first token. */
  burstPasses: number;
  /** Share of one burst pass that one request's prompt takes (isl / tokens per burst pass). */
  burstShareOfPass: number;
  /** Decode steps per request (osl − 1). */
  steps: number;
}

/** Mean over j = 1…b of ⌈j·isl / budget⌉: burst passes until the j-th prompt is complete. */
export function meanBurstPasses(b: number, isl: number, budget: number): number {
  let sum = 0;
  for (let j = 1; j <= b; j++) sum += Math.ceil((j * isl) / budget - 1e-9);
  return sum / b;
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
  // A burst pass holds whole prompts and chunks of them; each token attends to isl/2 keys on average.
  const burstTokens = Math.min(budget, b * isl);
  const burstSeqs = Math.max(1, burstTokens / isl);
  return {
    b,
    concurrency: Math.max(1, input.batch),
    chunks,
    mixedFraction: Math.min(steps, (b - 1) * chunks) / steps,
    decodeMs: perf.passMs({ prefillSeqs: 0, prefillTokens: 0, prefillAttnPairs: 0, decodeSeqs: b, decodeContextSum: b * ctx }),
    mixedMs: perf.passMs({ prefillSeqs: 1, prefillTokens: chunk, prefillAttnPairs: meanPairs, decodeSeqs: b - 1, decodeContextSum: (b - 1) * ctx }),
    prefillOneMs: chunks * perf.passMs({ prefillSeqs: 1, prefillTokens: chunk, prefillAttnPairs: meanPairs, decodeSeqs: 0, decodeContextSum: 0 }),
    prefillBatchMs: perf.passMs({ prefillSeqs: b, prefillTokens: b * isl, prefillAttnPairs: (b * isl * isl) / 2, decodeSeqs: 0, decodeContextSum: 0 }),
    burstPassMs: perf.passMs({ prefillSeqs: burstSeqs, prefillTokens: burstTokens, prefillAttnPairs: (burstTokens * isl) / 2, decodeSeqs: 0, decodeContextSum: 0 }),
    burstPasses: meanBurstPasses(b, isl, budget),
    burstShareOfPass: Math.min(1, isl / burstTokens),
    steps,
  };
}

/** TPOT: pure decode passes, a share of them mixed with other requests' prefill chunks. */
export function steadyTpot(p: SteadyStateParts, f: number): number {
  return p.decodeMs + f * p.mixedFraction * (p.mixedMs - p.decodeMs);
}

/**
 * Mean time from arrival to first token at the prefill stage of a closed loop of b clients (exact
 * mean-value analysis of one queue plus a think time): each client decodes for `thinkMs`, then needs
 * `serviceMs` of the engine's prefill capacity; its own prefill takes at least `ownMs`. At low load
 * this is `ownMs`; when prompts arrive faster than the budget serves them it grows to b·service − think.
 */
export function prefillResponseMs(b: number, ownMs: number, serviceMs: number, thinkMs: number): number {
  let q = 0;
  let r = ownMs;
  for (let n = 1; n <= b; n++) {
    r = ownMs + serviceMs * q;
    q = (n * r) / (r + thinkMs);
  }
  return r;
}

/** The fitted factors of the TTFT composition (Overhead fields; see the module comment). */
export interface TtftFactors {
  burstShare: number;
  burstRequests: number;
  prefillScale: number;
  fixedMs: number;
}

/** Share of a benchmark run's requests that arrive in its start-up burst. */
export function burstShareAt(concurrency: number, burstShare: number, burstRequests: number): number {
  return burstRequests > 0 ? Math.min(burstShare, concurrency / burstRequests) : burstShare;
}

/** TTFT with burst share s and no fixed time, prefill work scaled (the fit evaluates it at s = 0 and 1). */
export function ttftAtShare(p: SteadyStateParts, tpotMs: number, s: number, prefillScale = 1): number {
  const mixed = p.decodeMs + prefillScale * (p.mixedMs - p.decodeMs);
  const burstPass = prefillScale * p.burstPassMs;
  const own = p.chunks * mixed + 0.5 * p.decodeMs;
  const staggered = prefillResponseMs(p.b, own, p.burstShareOfPass * burstPass, p.steps * tpotMs);
  return s * p.burstPasses * burstPass + (1 - s) * staggered;
}

/** TTFT from the parts and the fitted factors, given the TPOT (see the module comment). */
export function steadyTtft(p: SteadyStateParts, tpotMs: number, t: TtftFactors): number {
  return t.fixedMs + ttftAtShare(p, tpotMs, burstShareAt(p.concurrency, t.burstShare, t.burstRequests), t.prefillScale);
}

/** TTFT / TPOT from the parts and the steady-state factors (see the module comment). */
export function combineSteadyState(p: SteadyStateParts, f: number, t: TtftFactors): { ttftMs: number; tpotMs: number } {
  const tpot = steadyTpot(p, f);
  return { ttftMs: steadyTtft(p, tpot, t), tpotMs: tpot };
}

/** The TTFT factors an engine's fitted overheads carry. */
export function ttftFactorsOf(o: Pick<Overhead, 'burstShare' | 'burstRequests' | 'prefillScale' | 'ttftFixedMs'>): TtftFactors {
  return { burstShare: o.burstShare, burstRequests: o.burstRequests, prefillScale: o.prefillScale, fixedMs: o.ttftFixedMs };
}

export function estimateSteadyState(input: SteadyStateInput): SteadyStateEstimate {
  const { model, system, backend, shape, kvDtype, isl, osl } = input;
  const mem = estimateMemory({ model, system, shape, backend, weightQuant: input.quant, moeQuant: input.moeQuant, kvDtype });
  const perf = createEnginePerf({ model, system, backend, shape, quant: input.quant, moeQuant: input.moeQuant, kvDtype, nextn: input.nextn, coefficientsDir: input.coefficientsDir, overhead: input.overhead });
  const parts = steadyStateParts(perf, input);
  const { ttftMs, tpotMs } = combineSteadyState(parts, perf.overhead.prefillInterleave, ttftFactorsOf(perf.overhead));
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
