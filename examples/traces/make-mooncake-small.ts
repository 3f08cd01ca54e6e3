// Generates examples/traces/mooncake-small.jsonl: 400 Mooncake-format requests with bursty
// arrivals over ~30 minutes (long enough for the load-predictor sub-sweep to score several
// 180 s / 240 s windows) and realistic prefix sharing (mooncake-requests.ts). Deterministic (fixed
// seed), so re-running it reproduces the committed file byte for byte:
//   node --import tsx examples/traces/make-mooncake-small.ts
import { fileURLToPath } from 'node:url';
import { mulberry32 as prng } from '../../test/support/mulberry32.js';
import { requestSampler, writeTrace, type Row } from './mooncake-requests.js';

const ROWS = 400;
const rand = prng(20261129);
const { int, next } = requestSampler(rand);
const expo = (meanMs: number) => -Math.log(1 - rand()) * meanMs;

const rows: Row[] = [];
let t = 0;
while (rows.length < ROWS) {
  // Bursts of 10–40 requests ~60 ms apart, separated by 60–180 s lulls.
  const burst = int(10, 40);
  for (let i = 0; i < burst && rows.length < ROWS; i++) {
    rows.push({ timestamp: Math.round(t), ...next() });
    t += expo(60);
  }
  t += int(60_000, 180_000);
}

// An optional argument writes elsewhere (the test checks determinism against the committed file).
writeTrace(rows, process.argv[2] ?? fileURLToPath(new URL('./mooncake-small.jsonl', import.meta.url)));
