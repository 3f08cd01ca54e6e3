// The serving stack's per-request work outside engine passes: the HTTP frontend and tokenizer in
// front of the engines (vLLM's API server, SGLang's TokenizerManager, trtllm-serve, Dynamo's frontend).
// A request is timed from its send (TTFT's origin, as benchmark clients time it); it reaches the
// router after
// * tokenisation of its prompt, serial through one tokenizer (one Python process in all three stacks),
//   at `tokenizeMsPerToken` per prompt token — queued behind the prompts sent just before it, and
// * a fixed latency `fixedMs` (HTTP parsing, request validation, hand-off to the engine process, and the
//   first token's way back: detokenisation and streaming), which delays the whole request equally,
//   so it adds to TTFT and E2E but not to TPOT. Fitted per (SKU, backend, mode) by `npm run calibrate`
//   (src/calibration/fit.ts), read from `overhead.replay` of the coefficient file.

export interface FrontendConfig {
  fixedMs: number;
  tokenizeMsPerToken: number;
}

/**
 * Tokenizer cost per prompt token, ms. HF fast tokenizers encode roughly 0.5–2 µs per token of
 * running text on one core, C++ serving stacks report 10–20 µs/token on short prompts (fixed costs
 * included); 1 µs/token is the long-prompt figure the benchmarks here (≥ 1k-token prompts) pay.
 */
export const TOKENIZE_MS_PER_TOKEN = 0.001;

/** Serial tokenizer + fixed latency: when each request reaches the router. */
export class Frontend {
  private freeMs = 0;
  constructor(private readonly cfg: FrontendConfig) {}

  /** Time the request sent at `sentMs` with an `isl`-token prompt reaches the router. */
  admitAt(sentMs: number, isl: number): number {
    const start = sentMs > this.freeMs ? sentMs : this.freeMs;
    this.freeMs = start + this.cfg.tokenizeMsPerToken * isl;
    return this.freeMs + this.cfg.fixedMs;
  }
}
