// One request in flight. Mutable and pooled per run: the hot loops touch plain numeric fields only.
import type { BlockInterner } from '../block-interner.js';
import { promptBlockHashes, type PromptContent } from '../workload/request.js';

export class SimRequest {
  // --- identity and workload -------------------------------------------------------------------
  /** Issue order (0-based), also the deterministic tie-breaker. */
  readonly id: number;
  readonly session: number;
  readonly turn: number;
  readonly isl: number;
  readonly osl: number;
  readonly prompt: PromptContent;
  readonly arrivalMs: number;

  // --- engine state (reset when the request moves to another worker) ---------------------------
  /** Tokens whose KV is computed on the current rank. */
  computed = 0;
  /** Tokens that exist: prompt + emitted outputs (what a recompute must process). */
  known: number;
  /** Tokens to compute before emitting again (the prompt, or prompt + outputs after a recompute). */
  prefillTarget = 0;
  /** Cached blocks this request references on its rank, in prompt order. */
  refs: number[] = [];
  privateBlocks = 0;
  /** Prompt blocks already offered to the prefix cache. */
  hashedUpTo = 0;
  /** Tokens scheduled in the pass in flight. */
  scheduled = 0;
  /** Earliest time the request may be admitted (G2 restore in progress). */
  readyAtMs = 0;
  /** Blocks the request got back from G2 when admitted after a restore. */
  restoredBlocks = 0;
  /** The rank's pass count from which the request may be admitted (EngineConfig.admissionLagPasses). */
  admitAtPass = 0;
  /** MTP fractional-token accumulator. */
  mtpCarry = 0;

  // --- results -----------------------------------------------------------------------------------
  /**
   * Disaggregated serving: the prefill worker's first token has reached the decode worker with the KV
   * but is streamed to the client with the decode worker's first step (with the token that step makes).
   */
  firstTokenHeld = false;
  emitted = 0;
  firstTokenMs = -1;
  lastTokenMs = -1;
  doneMs = -1;
  preemptions = 0;
  /** Pool and router slot of the current stage, and the blocks the router booked there. */
  pool = -1;
  slot = -1;
  bookedBlocks = 0;

  private hashBlockSize = 0;
  private hashCache: Int32Array | null = null;

  constructor(
    id: number,
    session: number,
    turn: number,
    isl: number,
    osl: number,
    prompt: PromptContent,
    arrivalMs: number,
    private readonly interner: BlockInterner,
  ) {
    this.id = id;
    this.session = session;
    this.turn = turn;
    this.isl = isl;
    this.osl = osl;
    this.prompt = prompt;
    this.arrivalMs = arrivalMs;
    this.known = isl;
  }

  /**
   * Full prompt blocks at `blockSize` as interned block ids (memoized: roles may differ in block size).
   * Equal ids ⇔ equal chained hashes ⇔ equal prefixes.
   */
  hashes(blockSize: number): Int32Array {
    if (this.hashBlockSize !== blockSize || this.hashCache === null) {
      const h = promptBlockHashes(this.prompt, this.isl, blockSize);
      const ids = new Int32Array(h.length);
      for (let i = 0; i < h.length; i++) ids[i] = this.interner.id(h[i]);
      this.hashCache = ids;
      this.hashBlockSize = blockSize;
    }
    return this.hashCache;
  }

  blocksHeld(): number {
    return this.refs.length + this.privateBlocks;
  }
}
