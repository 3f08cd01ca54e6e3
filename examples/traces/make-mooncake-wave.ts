// Generates examples/traces/mooncake-wave.jsonl: 20 minutes of Mooncake-format requests whose
// arrival rate swings as a wave between a quiet trough and a peak several times the trough (two
// peaks), with the same prefix-sharing content as the small trace (mooncake-requests.ts). A load
// that varies this much is what an autoscaling planner is for: a fixed deployment sized for the
// peak idles in the troughs, one sized for the trough misses the SLA at the peak, so planner
// policies rank differently under the example's SLA. Arrivals are a non-homogeneous Poisson process
// (thinning of a peak-rate process). Deterministic (fixed seed), reproduced byte for byte by:
//   node --import tsx examples/traces/make-mooncake-wave.ts
import { fileURLToPath } from 'node:url';
import { mulberry32 as prng } from '../../test/support/mulberry32.js';
import { requestSampler, writeTrace, type Row } from './mooncake-requests.js';

const SPAN_MS = 20 * 60_000;
const PERIOD_MS = 10 * 60_000; // two peaks, at 5 and 15 minutes
const TROUGH_PER_S = 0.5;
const PEAK_PER_S = 12;
const rate = (tMs: number) => TROUGH_PER_S + (PEAK_PER_S - TROUGH_PER_S) * Math.sin((Math.PI * tMs) / PERIOD_MS) ** 2;

const rand = prng(20261203);
const { next } = requestSampler(rand);
const rows: Row[] = [];
let t = 0;
for (;;) {
  t += (-Math.log(1 - rand()) * 1000) / PEAK_PER_S;
  if (t >= SPAN_MS) break;
  if (rand() < rate(t) / PEAK_PER_S) rows.push({ timestamp: Math.round(t), ...next() });
}

// An optional argument writes elsewhere (the test checks determinism against the committed file).
writeTrace(rows, process.argv[2] ?? fileURLToPath(new URL('./mooncake-wave.jsonl', import.meta.url)));
