// ReplayReport: the metrics the sweeper scores (dynamo-facts §3/§7, Clarification D) plus metadata.
// duration = first arrival → last completion; rates are completed work / duration; TPOT per request
// = (e2e − ttft)/(out − 1) averaged; ITL = every inter-token gap pooled; goodput counts requests
// meeting every SLA bound (TTFT, the request's average ITL — skipped below 2 output tokens — and E2E).
import type { ReplayOutcome } from './cluster.js';
import { mean, percentileSorted } from './stats.js';

// 2: benchmark client (re-issue latency, output-length spread) and frontend (tokenizer, fixed latency)
// modelled; the engine's admission delay is gone.
export const SIMULATOR_VERSION = 'spica-replay/2';

export interface ReplayMetadata {
  spec_hash: string;
  simulator_version: string;
  event_count: number;
  /** The only non-deterministic field. */
  wall_time_ms: number;
  [key: string]: string | number | boolean | null;
}

export interface ReplayReport {
  metrics: Record<string, number>;
  metadata: ReplayMetadata;
}

export interface SlaBounds {
  ttft_ms?: number;
  itl_ms?: number;
  e2e_ms?: number;
}

const PCTS = [50, 90, 99];

function distribution(name: string, values: Float64Array, out: Record<string, number>): void {
  const sorted = values.slice().sort();
  out[`mean_${name}`] = mean(values);
  for (const p of PCTS) out[`p${p}_${name}`] = percentileSorted(sorted, p);
}

export function computeMetrics(o: ReplayOutcome, sla: SlaBounds | null): Record<string, number> {
  const rec = o.recorder;
  const done = rec.completed;
  const n = done.length;
  const durationMs = n > 0 ? rec.lastCompletionMs - rec.firstArrivalMs : 0;
  const durS = durationMs / 1000;
  const ttft = new Float64Array(n);
  const e2e = new Float64Array(n);
  const tpot = new Float64Array(n);
  let nTpot = 0;
  let outTokens = 0;
  let goodTokens = 0;
  let goodReqs = 0;
  for (let i = 0; i < n; i++) {
    const r = done[i];
    ttft[i] = r.firstTokenMs - r.arrivalMs;
    e2e[i] = r.doneMs - r.arrivalMs;
    outTokens += r.emitted;
    let itl = 0;
    if (r.emitted >= 2) {
      itl = (e2e[i] - ttft[i]) / (r.emitted - 1);
      tpot[nTpot++] = itl;
    }
    const ok =
      sla === null ||
      ((sla.ttft_ms === undefined || ttft[i] <= sla.ttft_ms) &&
        (sla.itl_ms === undefined || r.emitted < 2 || itl <= sla.itl_ms) &&
        (sla.e2e_ms === undefined || e2e[i] <= sla.e2e_ms));
    if (ok) {
      goodReqs++;
      goodTokens += r.emitted;
    }
  }
  const m: Record<string, number> = {};
  const rate = (x: number) => (durS > 0 ? x / durS : 0);
  m.completed_requests = n;
  m.issued_requests = o.issued;
  m.rejected_requests = rec.rejected;
  m.duration_ms = durationMs;
  m.output_tokens = outTokens;
  m.output_throughput_tok_s = rate(outTokens);
  m.request_throughput_rps = rate(n);
  m.goodput_output_throughput_tok_s = rate(goodTokens);
  m.goodput_request_throughput_rps = rate(goodReqs);
  distribution('ttft_ms', ttft, m);
  distribution('tpot_ms', tpot.subarray(0, nTpot), m);
  distribution('e2e_latency_ms', e2e, m);
  // ITL: pooled gaps (can be ~100 M), kept as an exact distribution by the recorder.
  m.mean_itl_ms = rec.itl.mean();
  const [p50, p90, p99] = rec.itl.percentiles(PCTS);
  m.p50_itl_ms = p50;
  m.p90_itl_ms = p90;
  m.p99_itl_ms = p99;
  m.mean_output_token_throughput_per_user = rec.itl.invCount > 0 ? rec.itl.invSum / rec.itl.invCount : 0;
  m.prefix_cache_hit_rate = o.queryTokens > 0 ? o.hitTokens / o.queryTokens : 0;
  m.host_cache_hit_tokens = o.hostHitTokens;
  m.preemptions = o.preemptions;
  m.gpu_hours = o.gpuMs / 3_600_000;
  m.avg_gpu = durationMs > 0 && o.gpuMs > 0 ? o.gpuMs / durationMs : 0;
  m.engine_passes = o.passes;
  m.kv_transfers = o.transfers;
  m.mean_kv_transfer_ms = o.transfers > 0 ? o.transferMsSum / o.transfers : 0;
  m.scaling_actions = o.scalingActions;
  m.peak_workers = o.peakWorkers;
  // NaN never leaves the simulator (canonical JSON rejects it): an empty distribution is left out,
  // which goal scoring reads as missing (+∞ for minimized latency, 0 for maximized metrics).
  for (const k of Object.keys(m)) if (!Number.isFinite(m[k])) delete m[k];
  return m;
}
