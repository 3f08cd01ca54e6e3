// Synthetic workloads: fixed or randomized ISL/OSL, optional shared prefixes and multi-turn sessions,
// open loop at a request rate or closed loop at a concurrency. All randomness from one seeded PRNG.
import { Prng } from '../prng.js';
import type { PromptContent, SessionSpec, TurnSpec, WorkloadPlan } from './request.js';

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
  /** Output lengths × uniform [1 − s, 1 + s] (mean kept), from their own stream; 0 = as drawn. */
  outputLenSpread?: number;
}

/*
 * Why synthetic workloads spread output lengths by default (`output_len_spread`, 0.1: config/schema.ts;
 * README "Calibration and accuracy"). Benchmark clients do not emit exactly `osl` tokens per request: `osl` is the request's
 * max_tokens, and requests end earlier at EOS unless the client forces ignore_eos (vLLM's `bench serve`
 * random dataset only defaults to it since late 2025; its `--random-range-ratio` and SGLang's spread
 * lengths on purpose; AIPerf's output-length stddev). Requests of equal lengths admitted together
 * finish together, re-arrive together and are prefilled together again: a closed loop of identical
 * lengths phase-locks into prefill waves that measured runs do not show. ±10 % reproduces them best
 * (the 977 measured agg rows; output spread alone, the input side does not matter).
 */

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

/** The drawn workload, shared by every session of a plan (16 bytes per request). */
interface Draws {
  o: SyntheticOptions;
  isls: number[];
  osls: number[];
  /** Prefix group per request, −1 for none. */
  group: Int32Array;
  prefixLen: number;
  turns: number;
}

/**
 * Session `first / T` of a synthetic plan, built from the draws when read rather than held: a
 * million-request plan kept as objects cost ~450 MB for the whole replay (arrays of prompt runs per
 * turn); built on read, each turn's prompt lives only as long as its request. Reads give equal
 * content every time (a pure function of the draws).
 */
class SyntheticSession implements SessionSpec {
  constructor(
    private readonly d: Draws,
    private readonly first: number,
    readonly startMs: number | null,
  ) {}

  get turns(): TurnSpec[] {
    const { o, isls, osls, group, prefixLen } = this.d;
    const first = this.first;
    const out: TurnSpec[] = [];
    let history: PromptContent = { keys: [], lens: [] };
    let historyLen = 0;
    for (let i = first; i < Math.min(o.numRequests, first + this.d.turns); i++) {
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
      out.push({ isl: total, osl: osls[i], prompt, delayMs: i === first ? 0 : o.interTurnDelayMs });
      history = { keys: [...prompt.keys, KEY_OUTPUT + i], lens: [...prompt.lens, osls[i]] };
      historyLen = total + osls[i];
    }
    return out;
  }
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
  const spread = o.outputLenSpread ?? 0;
  if (spread > 0) {
    // Its own stream, drawn after everything else: the lengths' and groups' draws never shift with it.
    const sp = new Prng((o.seed ^ 0x05b1ead) >>> 0);
    for (let i = 0; i < n; i++) osls[i] = Math.max(1, Math.round(osls[i] * (1 + spread * (2 * sp.next() - 1))));
  }
  const groups = o.sharedPrefixRatio > 0 ? Math.max(1, o.numPrefixGroups) : 0;
  const group = new Int32Array(n);
  for (let i = 0; i < n; i++) group[i] = groups > 0 ? prng.int(0, groups - 1) : -1;
  const turns = Math.max(1, o.turnsPerSession);
  const draws: Draws = { o, isls, osls, group, prefixLen: Math.floor(o.sharedPrefixRatio * o.isl), turns };
  const interval = load.kind === 'rate' ? 1000 / load.requestRate : 0;
  const sessions: SessionSpec[] = [];
  for (let first = 0; first < n; first += turns)
    sessions.push(new SyntheticSession(draws, first, load.kind === 'rate' ? sessions.length * interval * turns : null));
  return { sessions, concurrency: load.kind === 'concurrency' ? load.concurrency : null, numRequests: n };
}
