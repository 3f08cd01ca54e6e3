// Throughput scaling's per-engine capacity (dynamo-facts §5, throughput_scaling.py): requests/s one
// engine sustains while meeting the SLA, from the perf model (the simulator's own pass-time model, so
// sizing and replay agree). Batch sizes are searched by bisection: pass time grows with the batch.
//   prefill: k prompts per pass of ISL·(1 − predicted prefix-hit rate) new tokens; a request waits for
//            the pass in flight, then its own: TTFT ≈ 2 passes (chunked prompts: one per chunk + 1).
//   decode:  b requests at context ISL + OSL/2; ITL = pass time (÷ MTP tokens per step) ≤ ITL SLA.
//   agg:     b concurrent requests whose decode passes also carry the prefill of the arrivals that keep
//            b steady (b·new tokens per OSL steps); both the ITL and the TTFT bound must hold.
// An SLA no batch can meet leaves the engine at batch 1 (more replicas cannot fix single-request latency).
import type { EnginePerf, PassWork } from '../../hardware/pass.js';
import { mtpTokensPerStep, type EngineConfig } from '../engine/engine-config.js';

export interface CapacityQuery {
  perf: EnginePerf;
  engine: EngineConfig;
  isl: number;
  osl: number;
  /** Predicted fraction of prompt tokens served from the prefix cache, 0..1. */
  prefixHitRate: number;
  ttftMs: number;
  itlMs: number;
}

/** Largest n in [1, hi] with ok(n), assuming ok is monotone (true then false); 1 if none. */
function largest(hi: number, ok: (n: number) => boolean): number {
  if (hi <= 1 || !ok(1)) return 1;
  if (ok(hi)) return hi;
  let lo = 1;
  let h = hi;
  while (h - lo > 1) {
    const mid = Math.floor((lo + h) / 2);
    if (ok(mid)) lo = mid;
    else h = mid;
  }
  return lo;
}

function work(prefillSeqs: number, prefillTokens: number, cachedPerSeq: number, decodeSeqs: number, decodeContextSum: number): PassWork {
  const perSeq = prefillSeqs > 0 ? prefillTokens / prefillSeqs : 0;
  return { prefillSeqs, prefillTokens, prefillAttnPairs: prefillTokens * (cachedPerSeq + perSeq / 2), decodeSeqs, decodeContextSum };
}

function newTokens(q: CapacityQuery): { fresh: number; cached: number } {
  const isl = Math.max(1, Math.round(q.isl));
  const hit = Math.min(1, Math.max(0, q.prefixHitRate));
  const fresh = Math.max(1, Math.round(isl * (1 - hit)));
  return { fresh, cached: isl - fresh };
}

/** Requests/s one prefill engine prefills within the TTFT SLA. */
export function prefillEngineRps(q: CapacityQuery): number {
  const { perf, engine } = q;
  const { fresh, cached } = newTokens(q);
  const budget = engine.maxNumBatchedTokens;
  if (Number.isFinite(budget) && fresh > budget) {
    const chunks = Math.ceil(fresh / budget);
    const pass = perf.passMs(work(1, budget, cached, 0, 0));
    return (1000 / (chunks * pass)) * engine.attentionDp;
  }
  const hi = Math.max(1, Math.min(engine.maxNumSeqs, Number.isFinite(budget) ? Math.floor(budget / fresh) : engine.maxNumSeqs));
  const passOf = (k: number) => perf.passMs(work(k, k * fresh, cached, 0, 0));
  const k = largest(hi, (n) => 2 * passOf(n) <= q.ttftMs);
  return ((k * 1000) / passOf(k)) * engine.attentionDp;
}

/** Most requests one rank can hold to completion in KV. */
function kvConcurrency(q: CapacityQuery): number {
  return Math.max(1, Math.floor(q.engine.kvCapacityTokensPerRank / Math.max(1, q.isl + q.osl)));
}

/** Requests/s one decode engine completes within the ITL SLA (context ISL + OSL/2). */
export function decodeEngineRps(q: CapacityQuery): number {
  const { perf, engine } = q;
  const tps = mtpTokensPerStep(engine.nextn);
  const ctx = Math.round(q.isl + q.osl / 2);
  const passOf = (b: number) => perf.passMs(work(0, 0, 0, b, b * ctx));
  const b = largest(Math.min(engine.maxNumSeqs, kvConcurrency(q)), (n) => passOf(n) / tps <= q.itlMs);
  const steps = Math.max(1, q.osl / tps);
  return ((b * 1000) / (steps * passOf(b))) * engine.attentionDp;
}

/** Requests/s one aggregated engine serves with both TTFT and ITL within the SLA (the 2-D model). */
export function aggEngineRps(q: CapacityQuery): number {
  const { perf, engine } = q;
  const tps = mtpTokensPerStep(engine.nextn);
  const { fresh, cached } = newTokens(q);
  const budget = engine.maxNumBatchedTokens;
  const ctx = Math.round(q.isl + q.osl / 2);
  const steps = Math.max(1, q.osl / tps);
  const chunks = Number.isFinite(budget) ? Math.ceil(fresh / budget) : 1;
  const passOf = (b: number) => {
    // Steady state: b/steps requests start per pass, each bringing `fresh` prompt tokens.
    const arriving = b / steps;
    const tokens = Math.min(Number.isFinite(budget) ? budget : Infinity, Math.round(arriving * fresh));
    const seqs = tokens > 0 ? Math.max(1, Math.ceil(arriving)) : 0;
    return perf.passMs(work(seqs, tokens, cached, b, b * ctx));
  };
  const b = largest(Math.min(engine.maxNumSeqs, kvConcurrency(q)), (n) => {
    const t = passOf(n);
    return t / tps <= q.itlMs && (chunks + 1) * t <= q.ttftMs;
  });
  const t = passOf(b);
  const byDecode = (b * 1000) / (steps * t);
  // The token budget caps how many prompts a pass can take in.
  const byPrefill = Number.isFinite(budget) ? (budget * 1000) / (fresh * t) : Infinity;
  return Math.min(byDecode, byPrefill) * engine.attentionDp;
}

export function engineRps(role: EngineConfig['role'], q: CapacityQuery): number {
  return role === 'prefill' ? prefillEngineRps(q) : role === 'decode' ? decodeEngineRps(q) : aggEngineRps(q);
}
