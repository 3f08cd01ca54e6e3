// One engine (worker): attention_dp rank schedulers behind one pass barrier. Every rank forms its own
// batch; the pass lasts as long as the slowest rank's batch takes on the perf model.
import type { EnginePerf } from '../../hardware/pass.js';
import type { ForwardPassMetrics } from '../scaling.js';
import type { EngineConfig } from './engine-config.js';
import { RankScheduler, type RankListener } from './rank-scheduler.js';
import type { TokenSink } from './token-sink.js';

export type WorkerState = 'starting' | 'ready' | 'draining' | 'stopped';

export class Worker {
  readonly ranks: RankScheduler[];
  state: WorkerState;
  /** A pass is in flight until this time (−1 = idle). */
  passEndMs = -1;
  /** A kick (pass-start event) is already queued. */
  kickQueued = false;
  passes = 0;
  stoppedMs = Infinity;
  busyMs = 0;
  /** Forward-pass metrics of the pass last started (the slowest rank's batch), for the planner. */
  readonly lastPass: ForwardPassMetrics = { prefillSeqs: 0, prefillTokens: 0, decodeSeqs: 0, decodeKvTokens: 0, wallMs: 0 };
  private readonly passScale: number;
  private readonly prefillScale: number;

  constructor(
    readonly index: number,
    readonly cfg: EngineConfig,
    private readonly perf: EnginePerf,
    readonly gpus: number,
    sink: TokenSink,
    listeners: (RankListener | null)[],
    readonly createdMs: number,
    ready: boolean,
  ) {
    this.passScale = cfg.passTimeScale ?? 1;
    this.prefillScale = cfg.prefillTimeScale ?? 1;
    this.ranks = [];
    for (let r = 0; r < cfg.attentionDp; r++) this.ranks.push(new RankScheduler(cfg, sink, listeners[r] ?? null));
    this.state = ready ? 'ready' : 'starting';
  }

  idle(): boolean {
    return this.passEndMs < 0;
  }

  hasWork(): boolean {
    for (const r of this.ranks) if (r.hasWork()) return true;
    return false;
  }

  /** Starts a pass at `nowMs`; returns its duration, or −1 when no rank could schedule anything. */
  startPass(nowMs: number): number {
    let ms = -1;
    let slowest: RankScheduler | null = null;
    for (const rank of this.ranks) {
      if (!rank.hasWork() && !rank.hasRestoring()) continue;
      if (rank.formBatch(nowMs) === 0) continue;
      const w = rank.work;
      const t =
        (this.prefillScale !== 1 && w.prefillTokens > 0 && this.perf.prefillScaledPassMs
          ? this.perf.prefillScaledPassMs(w, this.prefillScale)
          : this.perf.passMs(w)) * this.passScale;
      if (t > ms) {
        ms = t;
        slowest = rank;
      }
    }
    if (ms < 0) return -1;
    // Guard against a perf model returning 0 for a non-empty batch: time must advance.
    if (!(ms > 0)) ms = 1e-6;
    const w = slowest!.work;
    const fpm = this.lastPass;
    fpm.prefillSeqs = w.prefillSeqs;
    fpm.prefillTokens = w.prefillTokens;
    fpm.decodeSeqs = w.decodeSeqs;
    fpm.decodeKvTokens = w.decodeContextSum;
    fpm.wallMs = ms;
    this.passEndMs = nowMs + ms;
    this.passes++;
    this.busyMs += ms;
    return ms;
  }

  endPass(nowMs: number): void {
    this.passEndMs = -1;
    for (const rank of this.ranks) rank.finishPass(nowMs);
  }

  /** Earliest time a G2 restore completes on any rank (+∞ if none). */
  nextRestoreMs(): number {
    let t = Infinity;
    for (const r of this.ranks) {
      const x = r.nextRestoreMs();
      if (x < t) t = x;
    }
    return t;
  }
}
