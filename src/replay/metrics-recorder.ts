// Collects what the report needs while the replay runs: per-request timing and every inter-token gap.
import type { SimRequest } from './engine/sim-request.js';

export class MetricsRecorder {
  /** Every inter-token gap in ms, pooled over requests (tokens of one MTP step split the step's gap). */
  itl = new Float64Array(1 << 16);
  itlCount = 0;
  readonly completed: SimRequest[] = [];
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
    if (gaps > 0) {
      const g = req.lastTokenMs >= 0 ? (nowMs - req.lastTokenMs) / gaps : 0;
      if (this.itlCount + gaps > this.itl.length) {
        const next = new Float64Array(Math.max(this.itl.length * 2, this.itlCount + gaps));
        next.set(this.itl.subarray(0, this.itlCount));
        this.itl = next;
      }
      for (let i = 0; i < gaps; i++) this.itl[this.itlCount++] = g;
    }
    req.lastTokenMs = nowMs;
  }

  finished(req: SimRequest, nowMs: number): void {
    req.doneMs = nowMs;
    this.completed.push(req);
    if (nowMs > this.lastCompletionMs) this.lastCompletionMs = nowMs;
  }
}
