// Aggregation of a request trace into fixed-length load windows: what the planner's throughput
// loop observes each adjustment interval (request count, mean ISL, mean OSL).
import { InputError } from '../errors.js';

/** One trace request; arrivals are normalized so the first request arrives at 0 ms. */
export interface TraceRequest {
  arrival_ms: number;
  isl: number;
  osl: number;
}

export interface LoadWindows {
  /** Requests arriving in [k·interval, (k+1)·interval). */
  count: Float64Array;
  meanIsl: Float64Array;
  meanOsl: Float64Array;
}

/**
 * Windows cover [0, last arrival]: window k holds arrivals in [k·interval, (k+1)·interval), so the
 * last window may be partial. An empty window has count 0 and carries the mean ISL/OSL of the last
 * non-empty window (a gap in traffic says nothing about request sizes, and carrying keeps the ISL/OSL
 * series free of artificial drops to 0). Leading empty windows cannot occur (first arrival is 0);
 * should they, they take the first non-empty window's means.
 */
export function windowTrace(requests: readonly TraceRequest[], intervalSeconds: number): LoadWindows {
  if (!(Number.isFinite(intervalSeconds) && intervalSeconds > 0)) {
    throw new InputError(`throughput interval must be a positive number of seconds, got ${intervalSeconds}`);
  }
  const intervalMs = intervalSeconds * 1000;
  let lastArrival = -1;
  for (const r of requests) {
    if (!(Number.isFinite(r.arrival_ms) && r.arrival_ms >= 0)) {
      throw new InputError(`trace arrival_ms must be finite and ≥ 0 (normalized to the first arrival), got ${r.arrival_ms}`);
    }
    if (!(Number.isFinite(r.isl) && r.isl >= 0 && Number.isFinite(r.osl) && r.osl >= 0)) {
      throw new InputError(`trace isl/osl must be finite token counts ≥ 0, got isl=${r.isl} osl=${r.osl}`);
    }
    if (r.arrival_ms > lastArrival) lastArrival = r.arrival_ms;
  }
  const length = requests.length === 0 ? 0 : Math.floor(lastArrival / intervalMs) + 1;
  const count = new Float64Array(length);
  const meanIsl = new Float64Array(length);
  const meanOsl = new Float64Array(length);
  for (const r of requests) {
    const k = Math.floor(r.arrival_ms / intervalMs);
    count[k] += 1;
    meanIsl[k] += r.isl;
    meanOsl[k] += r.osl;
  }
  let carriedIsl = Number.NaN;
  let carriedOsl = Number.NaN;
  for (let k = 0; k < length; k++) {
    if (count[k] > 0) {
      meanIsl[k] /= count[k];
      meanOsl[k] /= count[k];
      carriedIsl = meanIsl[k];
      carriedOsl = meanOsl[k];
    } else if (!Number.isNaN(carriedIsl)) {
      meanIsl[k] = carriedIsl;
      meanOsl[k] = carriedOsl;
    }
  }
  // Back-fill any leading empty windows.
  const firstFull = count.findIndex((c) => c > 0);
  for (let k = 0; k < firstFull; k++) {
    meanIsl[k] = meanIsl[firstFull];
    meanOsl[k] = meanOsl[firstFull];
  }
  return { count, meanIsl, meanOsl };
}
