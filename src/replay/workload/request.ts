// What the simulator replays: sessions of turns, each turn one request with its prompt content.
import { chainHash, contentId } from '../block-hash.js';
import type { ClientModel } from './client.js';

/**
 * Prompt content as runs of tokens: token p inside run i has content (keys[i], offset in run).
 * Mooncake rows become one run per trace block (the hash id repeated trace_block_size times);
 * synthetic prompts are a shared-prefix run plus a unique run. Total length ≥ the request's ISL.
 */
export interface PromptContent {
  keys: number[];
  lens: number[];
}

export interface TurnSpec {
  isl: number;
  osl: number;
  prompt: PromptContent;
  /** Think time before this turn, counted from the previous turn's completion (ignored on turn 0). */
  delayMs: number;
}

export interface SessionSpec {
  /** Arrival of the first turn (open loop); null under a closed loop. */
  startMs: number | null;
  turns: TurnSpec[];
}

export interface WorkloadPlan {
  sessions: SessionSpec[];
  /** Closed-loop cap on active sessions (a slot is held through think time); null = open loop. */
  concurrency: number | null;
  /** Total requests to issue (closed loop stops issuing after this many). */
  numRequests: number;
  /** Closed loop: the benchmark client's re-issue latency (client.ts); absent = none. */
  client?: ClientModel;
}

/**
 * Full-block hashes of the first `isl` tokens at `blockSize` granularity (partial tail excluded).
 * Deterministic and independent of arrival order.
 */
export function promptBlockHashes(prompt: PromptContent, isl: number, blockSize: number): Float64Array {
  const n = Math.floor(isl / blockSize);
  const out = new Float64Array(n);
  let run = 0;
  let runStart = 0;
  let parent = 0;
  for (let j = 0; j < n; j++) {
    const start = j * blockSize;
    const end = start + blockSize;
    while (runStart + prompt.lens[run] <= start) {
      runStart += prompt.lens[run];
      run++;
    }
    // Fold every run piece the block overlaps: (key, offset in run, length of the piece).
    let content = 0;
    let r = run;
    let rs = runStart;
    let pos = start;
    while (pos < end) {
      const re = rs + prompt.lens[r];
      const pieceEnd = re < end ? re : end;
      content = contentId(prompt.keys[r], pos - rs, (pieceEnd - pos) ^ content);
      pos = pieceEnd;
      if (pos >= re) {
        rs = re;
        r++;
      }
    }
    parent = chainHash(parent, content);
    out[j] = parent;
  }
  return out;
}
