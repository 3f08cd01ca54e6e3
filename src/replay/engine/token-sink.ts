// Where engines report progress: token emissions, completions and prefill hand-offs.
import type { SimRequest } from './sim-request.js';

export interface TokenSink {
  /** `n` output tokens became visible to the client at `nowMs`. */
  tokens(req: SimRequest, n: number, nowMs: number): void;
  /** The request emitted its last token on this engine. */
  finished(req: SimRequest, nowMs: number): void;
  /** A prefill-role engine finished the prompt (first token sampled); the KV must move to decode. */
  prefillDone(req: SimRequest, nowMs: number): void;
  /** The request can never fit this rank's KV cache (prompt + lookahead beyond capacity). */
  rejected(req: SimRequest, nowMs: number): void;
}
