// Collects what the report needs while the replay runs: a compact record per finished request (its
// SimRequest, with its block lists, is released) and every inter-token gap, pooled exactly in little
// memory (pooled-distribution.ts). A 1 M-request replay keeps ~70 MB here instead of gigabytes.
import type { SimRequest } from './engine/sim-request.js';
import { PooledDistribution } from './pooled-distribution.js';

/** What a finished request leaves behind: its identity and timing. */
export interface CompletedRequest {
  id: number;
  arrivalMs: number;
  firstTokenMs: number;
  doneMs: number;
  emitted: number;
}

export class MetricsRecorder {
  /** Every inter-token gap in ms, pooled over requests (tokens of one MTP step split the step's gap). */
  readonly itl = new PooledDistribution();
  /** Finished requests in completion order. */
  readonly completed: CompletedRequest[] = [];
  rejected = 0;
  firstArrivalMs = Infinity;
  lastCompletionMs = -Infinity;

  arrival(nowMs: number): void {
    if (nowMs < this.firstArrivalMs) this.firstArrivalMs = nowMs;
  }

  tokens(req: SimRequest, n: number, nowMs: number): void {
    let gaps = n;
    if (req.firstTokenMs < 0) {
      req.firstTokenMs = nowMs;
      gaps = n - 1;
    }
    if (gaps > 0) this.itl.add(req.lastTokenMs >= 0 ? (nowMs - req.lastTokenMs) / gaps : 0, gaps);
    req.lastTokenMs = nowMs;
  }

  finished(req: SimRequest, nowMs: number): void {
    req.doneMs = nowMs;
    this.completed.push({ id: req.id, arrivalMs: req.arrivalMs, firstTokenMs: req.firstTokenMs, doneMs: nowMs, emitted: req.emitted });
    if (nowMs > this.lastCompletionMs) this.lastCompletionMs = nowMs;
  }
}
