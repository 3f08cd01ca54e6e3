// The benchmark client of a closed loop: when a request completes, its slot sends the next request
// after a re-issue latency drawn from an exponential distribution (mean `client_reissue_ms`, seeded).
//
// Why it is modelled (README "Calibration and accuracy", desynchronisation): with fixed lengths and a
// deterministic engine, requests admitted in the same pass finish in the same pass, re-arrive at the
// same instant and are admitted together again: the loop stays phase-locked in prefill waves forever.
// Measured closed loops do not: their clients (vLLM `bench serve`, SGLang `bench_serving`, AIPerf) are
// one asyncio loop that, on each completion, finishes parsing the stream, records the result, releases
// its semaphore and builds and posts the next request, while it also parses the SSE chunks of every
// other open stream; under load that loop lags by milliseconds to tens of milliseconds, unevenly from
// request to request. The spread, not its mean, is what splits a cohort across engine passes.
// The same delay applies to the initial wave (the client starts its c tasks one after another).
import { Prng } from '../prng.js';

export interface ClientModel {
  /** Mean re-issue latency, ms (0 = every slot re-issues at the instant it frees). */
  reissueMeanMs: number;
  seed: number;
}

/** Seeded draws of the client's per-request re-issue latency. */
export class ClientLatency {
  private readonly prng: Prng;
  constructor(private readonly m: ClientModel) {
    // Its own stream: the workload's lengths and the router's picks never shift with it.
    this.prng = new Prng((m.seed ^ 0x0c11e47) >>> 0);
  }

  draw(): number {
    if (!(this.m.reissueMeanMs > 0)) return 0;
    return -this.m.reissueMeanMs * Math.log(1 - this.prng.next());
  }
}
