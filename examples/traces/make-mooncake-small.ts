// Generates examples/traces/mooncake-small.jsonl: 400 Mooncake-format requests with bursty
// arrivals over ~30 minutes (long enough for the load-predictor sub-sweep to score several
// 180 s / 240 s windows) and realistic prefix sharing. Deterministic (fixed seed), so re-running it reproduces the
// committed file byte for byte:  node --import tsx examples/traces/make-mooncake-small.ts
//
// Row: {timestamp (ms), input_length, output_length, hash_ids}. One hash id stands for one
// 512-token block (the replay's trace_block_size); equal leading ids = a shared prefix.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mulberry32 as prng } from '../../test/support/mulberry32.js';

const ROWS = 400;
const BLOCK = 512;


const rand = prng(20261129);
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
const expo = (meanMs: number) => -Math.log(1 - rand()) * meanMs;

let nextId = 1;
const fresh = (n: number) => Array.from({ length: n }, () => nextId++);

// Shared system prompts (few-shot templates, tool schemas): most requests start with one of them.
const systemPrompts = [fresh(2), fresh(4), fresh(6), fresh(3)];
const promptWeights = [0.4, 0.3, 0.15, 0.15];
function pickPrompt(): number[] {
  let r = rand();
  for (let i = 0; i < systemPrompts.length; i++) {
    r -= promptWeights[i];
    if (r <= 0) return systemPrompts[i];
  }
  return systemPrompts[0];
}

interface Row {
  timestamp: number;
  input_length: number;
  output_length: number;
  hash_ids: number[];
}

// Open chat sessions: a follow-up turn re-sends the whole history (prefix hit) plus a new block or two.
const sessions: number[][] = [];
const rows: Row[] = [];
let t = 0;
while (rows.length < ROWS) {
  // Bursts of 10–40 requests ~60 ms apart, separated by 60–180 s lulls.
  const burst = int(10, 40);
  for (let i = 0; i < burst && rows.length < ROWS; i++) {
    let hashIds: number[];
    if (sessions.length > 0 && rand() < 0.35) {
      const s = int(0, sessions.length - 1);
      hashIds = [...sessions[s], ...fresh(int(1, 2))];
      sessions[s] = hashIds;
      if (hashIds.length > 14) sessions.splice(s, 1);
    } else {
      hashIds = rand() < 0.85 ? [...pickPrompt(), ...fresh(int(1, 4))] : fresh(int(1, 6));
      if (rand() < 0.5) sessions.push(hashIds);
      if (sessions.length > 12) sessions.shift();
    }
    rows.push({
      timestamp: Math.round(t),
      input_length: (hashIds.length - 1) * BLOCK + int(32, BLOCK),
      output_length: int(32, 384),
      hash_ids: hashIds,
    });
    t += expo(60);
  }
  t += int(60_000, 180_000);
}

// An optional argument writes elsewhere (the test checks determinism against the committed file).
const out = process.argv[2] ?? fileURLToPath(new URL('./mooncake-small.jsonl', import.meta.url));
writeFileSync(out, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
console.log(`wrote ${rows.length} rows to ${out} (span ${rows[rows.length - 1].timestamp} ms)`);
