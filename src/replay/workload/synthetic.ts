// Synthetic workloads: fixed or randomized ISL/OSL, optional shared prefixes and multi-turn sessions,
// open loop at a request rate or closed loop at a concurrency. All randomness from one seeded PRNG.
import { Prng } from '../prng.js';
import type { PromptContent, SessionSpec, WorkloadPlan } from './request.js';

export interface SyntheticOptions {
  isl: number;
  osl: number;
  /** Lengths uniform in [floor(r·len), len]; 1 = fixed. */
  randomRangeRatio: number;
  seed: number;
  /** Fraction of the nominal ISL that is a prefix shared within a group. */
  sharedPrefixRatio: number;
  numPrefixGroups: number;
  turnsPerSession: number;
  interTurnDelayMs: number;
  numRequests: number;
}

export type SyntheticLoad = { kind: 'rate'; requestRate: number } | { kind: 'concurrency'; concurrency: number };

// Content-key spaces (any integer is a key; these keep kinds of content apart).
const KEY_UNIQUE = 1 * 4294967296;
const KEY_GROUP = 2 * 4294967296;
const KEY_OUTPUT = 3 * 4294967296;

function lengths(prng: Prng, n: number, len: number, r: number): number[] {
  const lo = Math.max(1, Math.floor(r * len));
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = r >= 1 ? len : prng.int(lo, Math.max(lo, len));
  return out;
}

/**
 * Requests are numbered in issue order; session s holds requests s·T … s·T+T−1. A later turn's prompt
 * is the conversation so far (previous prompt + previous output) followed by its own ISL of new
 * tokens, so multi-turn reuse is what a chat client would produce. The ISL vector is drawn before the
 * OSL vector, then prefix-group assignments.
 */
export function syntheticPlan(o: SyntheticOptions, load: SyntheticLoad): WorkloadPlan {
  const prng = new Prng(o.seed);
  const n = o.numRequests;
  const isls = lengths(prng, n, o.isl, o.randomRangeRatio);
  const osls = lengths(prng, n, o.osl, o.randomRangeRatio);
  const groups = o.sharedPrefixRatio > 0 ? Math.max(1, o.numPrefixGroups) : 0;
  const group = new Array<number>(n);
  for (let i = 0; i < n; i++) group[i] = groups > 0 ? prng.int(0, groups - 1) : -1;
  const prefixLen = Math.floor(o.sharedPrefixRatio * o.isl);
  const turns = Math.max(1, o.turnsPerSession);
  const interval = load.kind === 'rate' ? 1000 / load.requestRate : 0;
  const sessions: SessionSpec[] = [];
  for (let first = 0; first < n; first += turns) {
    const spec: SessionSpec = { startMs: load.kind === 'rate' ? sessions.length * interval * turns : null, turns: [] };
    let history: PromptContent = { keys: [], lens: [] };
    let historyLen = 0;
    for (let i = first; i < Math.min(n, first + turns); i++) {
      const own: PromptContent = { keys: [], lens: [] };
      const isl = isls[i];
      const shared = i === first && group[i] >= 0 ? Math.min(prefixLen, isl) : 0;
      if (shared > 0) {
        own.keys.push(KEY_GROUP + group[i]);
        own.lens.push(shared);
      }
      if (isl > shared) {
        own.keys.push(KEY_UNIQUE + i);
        own.lens.push(isl - shared);
      }
      const prompt: PromptContent = { keys: [...history.keys, ...own.keys], lens: [...history.lens, ...own.lens] };
      const total = historyLen + isl;
      spec.turns.push({ isl: total, osl: osls[i], prompt, delayMs: i === first ? 0 : o.interTurnDelayMs });
      history = { keys: [...prompt.keys, KEY_OUTPUT + i], lens: [...prompt.lens, osls[i]] };
      historyLen = total + osls[i];
    }
    sessions.push(spec);
  }
  return { sessions, concurrency: load.kind === 'concurrency' ? load.concurrency : null, numRequests: n };
}
