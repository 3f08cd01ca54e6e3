// The request content both example traces share: Mooncake rows with realistic prefix sharing — most
// requests start with one of a few system prompts (few-shot templates, tool schemas), and open chat
// sessions re-send their whole history (a prefix hit) plus a new block or two. Only arrival times
// differ between the traces (see make-mooncake-small.ts, make-mooncake-wave.ts).
//
// Row: {timestamp (ms), input_length, output_length, hash_ids}. One hash id stands for one
// 512-token block (the replay's trace_block_size); equal leading ids = a shared prefix.

import { writeFileSync } from 'node:fs';

export const BLOCK = 512;

export interface Row {
  timestamp: number;
  input_length: number;
  output_length: number;
  hash_ids: number[];
}

export type RequestContent = Omit<Row, 'timestamp'>;

/** Draws request contents from `rand`; the call order on `rand` is part of each committed trace. */
export function requestSampler(rand: () => number): { int: (lo: number, hi: number) => number; next: () => RequestContent } {
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  let nextId = 1;
  const fresh = (n: number) => Array.from({ length: n }, () => nextId++);
  const systemPrompts = [fresh(2), fresh(4), fresh(6), fresh(3)];
  const promptWeights = [0.4, 0.3, 0.15, 0.15];
  const pickPrompt = (): number[] => {
    let r = rand();
    for (let i = 0; i < systemPrompts.length; i++) {
      r -= promptWeights[i];
      if (r <= 0) return systemPrompts[i];
    }
    return systemPrompts[0];
  };
  const sessions: number[][] = [];
  const next = (): RequestContent => {
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
    return { input_length: (hashIds.length - 1) * BLOCK + int(32, BLOCK), output_length: int(32, 384), hash_ids: hashIds };
  };
  return { int, next };
}

/** Writes rows as JSONL (one request per line, the committed files' exact bytes). */
export function writeTrace(rows: Row[], out: string): void {
  writeFileSync(out, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  console.log(`wrote ${rows.length} rows to ${out} (span ${rows[rows.length - 1].timestamp} ms)`);
}
