// Forecast-loss sub-sweep over all 11 load-predictor presets on a 24-hour synthetic trace at
// one-minute windows (1440 windows, ~350k requests), against a constant_last-only sweep of the same
// trace measured in the same run. Target: the full sweep under 1 s.
import { performance } from 'node:perf_hooks';
import { DEFAULT_LOAD_PREDICTOR_CANDIDATES, resolveLoadPredictor } from '../src/forecast/spec.js';
import { sweepLoadPredictors, type LoadPredictorCandidate } from '../src/forecast/subSweep.js';
import type { TraceRequest } from '../src/forecast/window.js';
import { mulberry32 } from '../test/support/mulberry32.js';


function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/** Diurnal arrival rate (mean 4 req/s, trough at midnight) with per-minute multiplicative noise. */
function diurnalTrace(seed: number): TraceRequest[] {
  const rand = mulberry32(seed);
  const requests: TraceRequest[] = [];
  for (let minute = 0; minute < 1440; minute++) {
    const phase = (2 * Math.PI * minute) / 1440;
    const rate = 4 * (1 - 0.6 * Math.cos(phase)) * Math.exp(0.1 * gaussian(rand));
    const mean = rate * 60;
    const n = Math.max(0, Math.round(mean + Math.sqrt(mean) * gaussian(rand)));
    const arrivals = Array.from({ length: n }, () => rand() * 60_000).sort((a, b) => a - b);
    const islMean = 1500 + 500 * Math.sin(phase);
    for (const offset of arrivals) {
      requests.push({
        arrival_ms: minute * 60_000 + offset,
        isl: Math.max(1, Math.round(islMean * Math.exp(0.5 * gaussian(rand)))),
        osl: Math.max(1, Math.round(300 * Math.exp(0.4 * gaussian(rand)))),
      });
    }
  }
  const t0 = requests[0].arrival_ms;
  for (const r of requests) r.arrival_ms -= t0;
  return requests;
}

function timeSweep(requests: TraceRequest[], candidates: LoadPredictorCandidate[], repeats: number) {
  let best = Number.POSITIVE_INFINITY;
  let result = sweepLoadPredictors({ requests, static_workload: false, throughput_intervals_seconds: [60], candidates });
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    result = sweepLoadPredictors({ requests, static_workload: false, throughput_intervals_seconds: [60], candidates });
    best = Math.min(best, performance.now() - start);
  }
  return { ms: best, result };
}

export async function run(): Promise<void> {
  const requests = diurnalTrace(20261129);
  const all = DEFAULT_LOAD_PREDICTOR_CANDIDATES.map((id) => resolveLoadPredictor(id));
  const constantOnly = [resolveLoadPredictor('constant_last')];

  const baseline = timeSweep(requests, constantOnly, 3);
  const full = timeSweep(requests, all, 3);
  const interval = full.result.per_interval[0];

  console.log(`trace: ${requests.length} requests over 24 h, ${interval.windows} one-minute windows (${interval.scored_windows} scored)`);
  console.log(`all 11 presets:       ${full.ms.toFixed(1)} ms (best of 3; target < 1000 ms)`);
  console.log(`constant_last only:   ${baseline.ms.toFixed(1)} ms (baseline, includes windowing the trace)`);
  console.log(`ratio all/constant:   ${(full.ms / baseline.ms).toFixed(1)}x`);
  // Where the time goes: each family's presets alone (best of 1 after the warm runs above).
  const byFamily = ['constant', 'arima', 'prophet', 'kalman'].map((family) => {
    const subset = all.filter((c) => c.spec.load_predictor === family);
    return `${family} (${subset.length}) ${timeSweep(requests, subset, 1).ms.toFixed(1)} ms`;
  });
  console.log(`per family:           ${byFamily.join(', ')}`);
  console.log(`winner: ${interval.winner}`);
  for (const l of interval.losses) console.log(`  ${l.id.padEnd(22)} ${l.loss === null ? 'n/a' : l.loss.toFixed(4)}`);
}
