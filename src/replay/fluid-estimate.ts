// Analytic (fluid) estimate of a resolved deployment's closed-loop metrics: what `spica estimate`'s
// steady-state pass model says a whole agg or disagg deployment would do under the workload, without
// running the discrete-event replay. Milliseconds per candidate instead of a replay's tens to hundreds,
// and only roughly right (no queueing dynamics, no prefix cache, no planner): the sweeper uses it as a
// prior to rank candidates, never as a result.
//
// Model, per pool (attention-DP ranks of all replicas serve in parallel):
// * decode: b requests per rank (the clients spread evenly, capped by max_num_seqs and the rank's KV
//   room for isl + osl tokens), one pass per token at context isl + osl/2;
// * agg: the steady-state TTFT/TPOT composition of hardware/perf/steadyState.ts at b per rank;
// * disagg: prefill passes pack whole prompts up to the token budget; TTFT is the closed-loop prefill
//   response time (mean-value analysis, steadyState.ts prefillResponseMs) plus the KV transfer and
//   the decode worker's first step;
// * clients beyond what the ranks hold wait (Little's law on the request cycle);
// * goodput: throughput times the share of requests expected to meet the SLA, read as a smooth
//   function of mean TTFT / TPOT against their bounds (requests spread around the mean).
import { prefillResponseMs, steadyStateParts, steadyTpot, ttftAtShare, ttftFactorsOf } from '../hardware/perf/steadyState.js';
import type { DetailedEnginePerf } from '../hardware/perf/engine.js';
import type { PdTransfer, PoolDeployment } from './deployment.js';

/** What the estimate reads of a resolved replay (resolve.ts ResolvedReplay, or pieces of several). */
export interface FluidDeployment {
  pools: readonly PoolDeployment[];
  transfer: PdTransfer | null;
  /** The frontend's fixed latency per request, ms. */
  frontendMs: number;
  /** Closed-loop clients. */
  concurrency: number;
  /** Requests the run issues in all (the share of them in the start-up burst is concurrency / this). */
  numRequests: number;
}

export interface FluidEstimate {
  mean_ttft_ms: number;
  mean_tpot_ms: number;
  mean_e2e_latency_ms: number;
  output_throughput_tok_s: number;
  goodput_output_throughput_tok_s: number;
  mean_output_token_throughput_per_user: number;
  avg_gpu: number;
}

export interface FluidSla {
  ttft_ms?: number | null;
  itl_ms?: number | null;
  e2e_ms?: number | null;
}

/** Relative spread of per-request latencies around their mean (the SLA share's softness). */
const SPREAD = 0.1;

/** Share of requests meeting `bound` when their latency spreads around `mean` (logistic in log space). */
function shareWithin(mean: number, bound: number | null | undefined): number {
  if (bound == null || !(bound > 0)) return 1;
  if (!(mean > 0)) return 1;
  const z = Math.log(bound / mean) / SPREAD;
  return 1 / (1 + Math.exp(-1.7 * z));
}

/** Requests one rank of the pool holds at once: max_num_seqs, and its KV room for whole requests. */
function rankCapacity(pool: PoolDeployment, tokensPerRequest: number): number {
  const kv = Math.floor(pool.engine.kvCapacityTokensPerRank / Math.max(1, tokensPerRequest));
  return Math.max(1, Math.min(pool.engine.maxNumSeqs, kv));
}

function ranks(pool: PoolDeployment): number {
  return pool.replicas * pool.engine.attentionDp;
}

const scaleOf = (pool: PoolDeployment): number => pool.engine.passTimeScale ?? 1;

function detailed(pool: PoolDeployment): DetailedEnginePerf {
  const perf = pool.perf as DetailedEnginePerf;
  if (!perf.overhead) throw new Error('fluidEstimate needs the calibrated pass model (createEnginePerf) of every pool');
  return perf;
}

function decodeStepMs(perf: DetailedEnginePerf, b: number, ctx: number): number {
  return perf.passMs({ prefillSeqs: 0, prefillTokens: 0, prefillAttnPairs: 0, decodeSeqs: b, decodeContextSum: b * ctx });
}

export function fluidEstimate(d: FluidDeployment, isl: number, osl: number, sla: FluidSla = {}): FluidEstimate {
  const { pools, transfer } = d;
  const clients = Math.max(1, d.concurrency);
  const steps = Math.max(1, osl - 1);
  const ctx = isl + osl / 2;
  const gpus = pools.reduce((a, p) => a + p.gpusPerWorker * p.replicas, 0);
  const frontendMs = d.frontendMs;
  let ttft: number;
  let tpot: number;
  let served: number;
  if (pools.length === 1) {
    const pool = pools[0];
    const cap = rankCapacity(pool, isl + osl);
    served = Math.min(clients, cap * ranks(pool));
    const perWorker = Math.max(1, served / pool.replicas);
    const perf = detailed(pool);
    const parts = steadyStateParts(perf, {
      isl,
      osl,
      batch: perWorker,
      shape: { tp: 1, pp: 1, attention_dp: pool.engine.attentionDp, moe_tp: 1, moe_ep: 1 },
      maxNumBatchedTokens: pool.engine.maxNumBatchedTokens,
    });
    // The start-up burst's share is the run's own (every client's first request), not the share the
    // steady-state fit found for benchmark rows.
    const t = ttftFactorsOf(perf.overhead);
    const tpotMs = steadyTpot(parts, perf.overhead.prefillInterleave);
    const burst = Math.min(1, clients / Math.max(clients, d.numRequests));
    ttft = (t.fixedMs + ttftAtShare(parts, tpotMs, burst, t.prefillScale)) * scaleOf(pool) + frontendMs;
    tpot = tpotMs * scaleOf(pool);
  } else {
    const pre = pools.find((p) => p.role === 'prefill') ?? pools[0];
    const dec = pools.find((p) => p.role === 'decode') ?? pools[pools.length - 1];
    const cap = rankCapacity(dec, isl + osl);
    served = Math.min(clients, cap * ranks(dec));
    const b = Math.max(1, served / ranks(dec));
    tpot = decodeStepMs(detailed(dec), b, ctx) * scaleOf(dec);
    // Prefill: whole prompts packed up to the token budget (at least one per pass).
    const budget = Math.max(isl, pre.engine.maxNumBatchedTokens);
    const perPass = Math.max(1, Math.min(pre.engine.maxNumSeqs, Math.floor(budget / isl)));
    const scale = scaleOf(pre) * (pre.engine.prefillTimeScale ?? 1);
    const onePass = (k: number): number => pre.perf.passMs({ prefillSeqs: k, prefillTokens: k * isl, prefillAttnPairs: (k * isl * isl) / 2, decodeSeqs: 0, decodeContextSum: 0 }) * scale;
    const own = onePass(1);
    const service = onePass(perPass) / perPass;
    const transferMs = transfer?.bandwidthGBps ? (isl * transfer.kvBytesPerToken) / (transfer.bandwidthGBps * 1e6) : 0;
    const perRank = Math.max(1, served / ranks(pre));
    // The start-up burst (every client's first request at t = 0) queues for the prefill ranks: the
    // j-th prompt of a rank waits for the j − 1 before it. Later requests arrive staggered: a rank's
    // clients think for their decode while others prefill (closed-loop response time).
    const burst = Math.min(1, clients / Math.max(clients, d.numRequests));
    const burstTtft = own + ((perRank - 1) / 2) * service;
    const staggered = prefillResponseMs(Math.max(1, Math.round(perRank)), own, service, steps * tpot);
    ttft = burst * burstTtft + (1 - burst) * staggered + transferMs + tpot + frontendMs;
  }
  const cycle = ttft + steps * tpot;
  const rps = (served * 1000) / cycle;
  // Clients the ranks cannot hold wait a whole cycle share for a slot.
  const wait = clients > served ? (clients / rps) * 1000 - cycle : 0;
  const meanTtft = ttft + Math.max(0, wait);
  const e2e = meanTtft + steps * tpot;
  const throughput = rps * osl;
  const good = shareWithin(meanTtft, sla.ttft_ms) * shareWithin(tpot, sla.itl_ms) * shareWithin(e2e, sla.e2e_ms);
  return {
    mean_ttft_ms: meanTtft,
    mean_tpot_ms: tpot,
    mean_e2e_latency_ms: e2e,
    output_throughput_tok_s: throughput,
    goodput_output_throughput_tok_s: throughput * good,
    mean_output_token_throughput_per_user: 1000 / tpot,
    avg_gpu: gpus,
  };
}
