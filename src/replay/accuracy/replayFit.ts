// Fits the replay's corrections of the perf model (`overhead.replay` in the coefficient files) from
// replays of measured rows made WITHOUT corrections. Pure.
//
// Two parameters per (sku, backend) and one per backend for disagg:
// * passScale s: every pass time × s, so a replay's TPOT and engine-side TTFT scale by s;
// * admissionMs d (agg) / disaggAdmissionMs (disagg): fixed arrival → admission time, adding d to TTFT.
// Fitting uses the first-order model TTFT ≈ s·TTFT₀ + d, TPOT ≈ s·TPOT₀ (exact for s; d slightly
// lowers the closed loop's load, which the verification replay in the bench measures). Objective:
// median |relative error|, as reported. Groups with fewer than `minRows` rows borrow the backend's
// pooled fit (all SKUs).
// Per architecture class (model/architecture-class.ts), agg rows of a (sku, backend) with at least
// `minRows` rows of that class get their own s and d (`byArchitecture`). Why: the residuals split by
// class, not by model — e.g. DeepSeek (MLA + MoE) on TRT-LLM carries ~100–180 ms of TTFT the pass model
// does not explain while dense models on the same engine need none — and one (sku, backend) value
// settled between them. First-order on the 977 agg rows (2026-11-30, 'benchmark' window): TTFT median
// |rel err| 22.3 % → 19.3 % in-sample (20.3 % 2-fold held out), TPOT 10.7 % → 9.6 % (10.2 %).
// The (sku, backend) values then serve the rest — classes without an entry and disagg rows — so they
// are fitted on those rows when there are `minRows` of them (a median over all rows sat between the
// classes: h200/sglang's 11 dense rows got 1.1 where they need ~1.0), else on all of the group's rows.
import { replayCorrections, type ReplayOverhead } from '../../hardware/perf/coefficients.js';
import { ARCHITECTURE_CLASSES, type ArchitectureClass } from '../../model/architecture-class.js';
import { atBurstShare, type WindowParts } from './window.js';

export interface RawReplay {
  id: string;
  sku: string;
  backend: string;
  mode: 'agg' | 'disagg';
  /** Architecture class of the row's model (absent: fitted with the (sku, backend) values only). */
  arch?: ArchitectureClass;
  ttft0: number;
  tpot0: number;
  ttftMs: number;
  tpotMs: number;
  /** Agg rows: the start-up wave's and the rest's raw means, from which ttft0 / tpot0 follow at a burst share. */
  parts?: WindowParts;
}

/** The (sku, backend) a row's corrections are fitted for: the coefficient file they are written to. */
export function fitKey(r: Pick<RawReplay, 'sku' | 'backend'>): string {
  return `${r.sku}/${r.backend}`;
}

export interface ClassFit {
  passScale: number;
  admissionMs: number;
  rows: number;
}

export interface ReplayFit {
  passScale: number;
  admissionMs: number;
  disaggAdmissionMs: number;
  rows: number;
  /** Agg corrections of the classes with enough rows of their own. */
  byArchitecture?: Partial<Record<ArchitectureClass, ClassFit>>;
  /** Burst share the harness reads agg rows at (fitBurstShares), when fitted. */
  burstShare?: number;
}

function medianAbs(xs: number[]): number {
  if (xs.length === 0) return NaN;
  xs.sort((a, b) => a - b);
  const m = (xs.length - 1) / 2;
  return (xs[Math.floor(m)] + xs[Math.ceil(m)]) / 2;
}

/** s minimising median |s·TPOT₀/TPOT − 1| over [0.5, 2] (grid of 0.005). */
export function fitPassScale(rows: readonly RawReplay[]): number {
  if (rows.length === 0) return 1;
  let best = 1;
  let bestErr = Infinity;
  for (let i = 0; i <= 300; i++) {
    const s = 0.5 + 0.005 * i;
    const e = medianAbs(rows.map((r) => Math.abs((s * r.tpot0) / r.tpotMs - 1)));
    if (e < bestErr - 1e-12) {
      bestErr = e;
      best = s;
    }
  }
  return Math.round(best * 1000) / 1000;
}

/** d ≥ 0 minimising median |(s·TTFT₀ + d)/TTFT − 1| (grid of 1 ms up to 1 s). */
export function fitAdmission(rows: readonly RawReplay[], scaleOf: (r: RawReplay) => number): number {
  if (rows.length === 0) return 0;
  let best = 0;
  let bestErr = Infinity;
  for (let d = 0; d <= 1000; d++) {
    const e = medianAbs(rows.map((r) => Math.abs((scaleOf(r) * r.ttft0 + d) / r.ttftMs - 1)));
    if (e < bestErr - 1e-12) {
      bestErr = e;
      best = d;
    }
  }
  return best;
}

/** Which admission delays to fit: none, only disaggregated serving's, or both. */
export type AdmissionFit = 'none' | 'disagg' | 'all';

/**
 * Fits per (sku, backend); returns one fit per `sku/backend` key present in `rows`. Delays not in
 * `admission` (or, for agg, of backends `aggAdmissionFor` rejects) stay 0: verified by replaying, the
 * additive first-order model of the agg delay only holds where the harness desynchronises the closed
 * loop (rowSpec.ts length spread); in phase-locked fixed-length loops it makes prefill waves instead.
 */
export function fitReplayOverheads(
  rows: readonly RawReplay[],
  minRows = 12,
  admission: AdmissionFit = 'all',
  /** Backends whose agg admission delay is fitted under 'all' (default every one). */
  aggAdmissionFor: (backend: string) => boolean = () => true,
): Map<string, ReplayFit> {
  const byKey = new Map<string, RawReplay[]>();
  const byBackend = new Map<string, RawReplay[]>();
  for (const r of rows) {
    byKey.set(fitKey(r), [...(byKey.get(fitKey(r)) ?? []), r]);
    byBackend.set(r.backend, [...(byBackend.get(r.backend) ?? []), r]);
  }
  const aggOf = (rs: RawReplay[]): RawReplay[] => rs.filter((r) => r.mode === 'agg');
  // Classes with rows enough of their own; the (sku, backend) values are fitted on the other rows (the
  // classes without an entry, and disagg rows) when those are enough, else on all of the group's rows.
  const ownClasses = new Map<string, ArchitectureClass[]>();
  for (const [k, rs] of byKey) {
    const agg = aggOf(rs);
    ownClasses.set(
      k,
      ARCHITECTURE_CLASSES.filter((cls) => {
        const n = agg.filter((r) => r.arch === cls).length;
        return n >= minRows && n < agg.length;
      }),
    );
  }
  const isRest = (r: RawReplay): boolean => r.mode === 'disagg' || !r.arch || !ownClasses.get(fitKey(r))!.includes(r.arch);
  const restOr = (rs: RawReplay[]): RawReplay[] => {
    const rest = rs.filter(isRest);
    return rest.length >= minRows ? rest : rs;
  };
  const scale = new Map<string, number>();
  const pooledScale = new Map<string, number>();
  for (const [b, rs] of byBackend) pooledScale.set(b, fitPassScale(rs));
  for (const [k, rs] of byKey) scale.set(k, rs.length >= minRows ? fitPassScale(restOr(rs)) : pooledScale.get(rs[0].backend)!);
  const s = (r: RawReplay): number => scale.get(fitKey(r))!;
  // Disagg rows are few: one admission time per backend, all SKUs pooled.
  const disaggAdmission = new Map<string, number>();
  for (const [b, rs] of byBackend) disaggAdmission.set(b, admission !== 'none' ? fitAdmission(rs.filter((r) => r.mode === 'disagg'), s) : 0);
  const pooledAdmission = new Map<string, number>();
  const aggFitted = (b: string): boolean => admission === 'all' && aggAdmissionFor(b);
  for (const [b, rs] of byBackend) pooledAdmission.set(b, aggFitted(b) ? fitAdmission(aggOf(rs), s) : 0);
  const out = new Map<string, ReplayFit>();
  for (const [k, rs] of byKey) {
    const agg = aggOf(rs);
    const b = rs[0].backend;
    const admissionMs = aggFitted(b) && agg.length >= minRows ? fitAdmission(restOr(agg), s) : pooledAdmission.get(b)!;
    const byArchitecture: Partial<Record<ArchitectureClass, ClassFit>> = {};
    for (const cls of ownClasses.get(k)!) {
      const mine = agg.filter((r) => r.arch === cls);
      const passScale = fitPassScale(mine);
      byArchitecture[cls] = { passScale, admissionMs: aggFitted(b) ? fitAdmission(mine, () => passScale) : admissionMs, rows: mine.length };
    }
    out.set(k, {
      passScale: scale.get(k)!,
      admissionMs,
      disaggAdmissionMs: disaggAdmission.get(b)!,
      rows: rs.length,
      ...(Object.keys(byArchitecture).length > 0 ? { byArchitecture } : {}),
    });
  }
  return out;
}

/** The pass scale and admission delay a fit applies to one row (its class's, for agg rows that have one). */
export function correctionsFor(r: Pick<RawReplay, 'mode' | 'arch'>, f: ReplayFit): { passScale: number; admissionMs: number } {
  return replayCorrections(f, r.mode, r.arch);
}

/** First-order prediction of a raw replay under a fit (what the fit optimises). */
export function predictRaw(r: RawReplay, f: ReplayFit): { ttftMs: number; tpotMs: number } {
  const c = correctionsFor(r, f);
  const x = f.burstShare !== undefined ? atShare(r, f.burstShare) : r;
  return { ttftMs: c.passScale * x.ttft0 + c.admissionMs, tpotMs: c.passScale * x.tpot0 };
}

/**
 * A replay made under fit f, mapped back to raw terms (TTFT₀ := (TTFT − d)/s, TPOT₀ := TPOT/s, each
 * window part alike): the fixed-point refinement of calibrate-replay.ts.
 */
export function unapplyFit(x: RawReplay, corrected: { ttftMs: number; tpotMs: number; parts?: WindowParts }, f: ReplayFit): RawReplay {
  const c = correctionsFor(x, f);
  const ttft = (t: number): number => Math.max(1e-6, (t - c.admissionMs) / c.passScale);
  const p = corrected.parts;
  return {
    ...x,
    ttft0: ttft(corrected.ttftMs),
    tpot0: corrected.tpotMs / c.passScale,
    ...(p ? { parts: { burstTtftMs: ttft(p.burstTtftMs), restTtftMs: ttft(p.restTtftMs), burstTpotMs: p.burstTpotMs / c.passScale, restTpotMs: p.restTpotMs / c.passScale } } : {}),
  };
}

/** A raw replay read at burst share w (agg rows with window parts; others unchanged). */
export function atShare(r: RawReplay, w: number): RawReplay {
  if (r.mode !== 'agg' || !r.parts) return r;
  const m = atBurstShare(r.parts, w);
  return { ...r, ttft0: m.ttftMs, tpot0: m.tpotMs };
}

/** Burst shares tried per (sku, backend): 0 … 0.6 (the steady-state fits stay within it). */
const BURST_SHARES = Array.from({ length: 25 }, (_, i) => (i * 25) / 1000);

/**
 * Per (sku, backend), the burst share at which the harness reads agg rows ('benchmark' window): the one
 * whose corrections (fitted on that group's rows alone) give the smallest median |TTFT error| of its agg
 * rows. Why fitted here rather than borrowed from the steady-state fit: there the share trades off
 * against a prefill scale and a fixed TTFT, and a refit can move it (h100/vllm 0.16 → 0.34 after the
 * 2026-11-30 shape fix, which put that group's replay TTFT at +20 % bias, 26 % median error).
 * First-order on the 977 agg rows: in-sample 17.8 → 17.0 %, 2-fold held out 22.0 → 21.5 %.
 */
export function fitBurstShares(rows: readonly RawReplay[], minRows = 12, admission: AdmissionFit = 'all', aggAdmissionFor: (backend: string) => boolean = () => true): Map<string, number> {
  const byKey = new Map<string, RawReplay[]>();
  for (const r of rows) byKey.set(fitKey(r), [...(byKey.get(fitKey(r)) ?? []), r]);
  const out = new Map<string, number>();
  for (const [k, rs] of byKey) {
    if (!rs.some((r) => r.parts)) continue;
    let best = BURST_SHARES[0];
    let bestErr = Infinity;
    for (const w of BURST_SHARES) {
      const at = rs.map((r) => atShare(r, w));
      const fit = fitReplayOverheads(at, minRows, admission, aggAdmissionFor).get(k)!;
      const e = medianAbs(at.filter((r) => r.mode === 'agg').map((r) => Math.abs(predictRaw(r, fit).ttftMs / r.ttftMs - 1)));
      if (e < bestErr - 1e-12) {
        bestErr = e;
        best = w;
      }
    }
    out.set(k, best);
  }
  return out;
}

/** fitReplayOverheads on the rows read at each group's fitted burst share, the share recorded in the fit. */
export function fitWithBurstShares(rows: readonly RawReplay[], minRows = 12, admission: AdmissionFit = 'all', aggAdmissionFor: (backend: string) => boolean = () => true): Map<string, ReplayFit> {
  const shares = fitBurstShares(rows, minRows, admission, aggAdmissionFor);
  const at = rows.map((r) => atShare(r, shares.get(fitKey(r)) ?? 0));
  const fits = fitReplayOverheads(at, minRows, admission, aggAdmissionFor);
  for (const [k, w] of shares) {
    const f = fits.get(k);
    if (f) f.burstShare = w;
  }
  return fits;
}

export function toReplayOverhead(f: ReplayFit, source: string): ReplayOverhead {
  return {
    passScale: f.passScale,
    admissionMs: f.admissionMs,
    disaggAdmissionMs: f.disaggAdmissionMs,
    ...(f.burstShare !== undefined ? { burstShare: f.burstShare } : {}),
    ...(f.byArchitecture ? { byArchitecture: f.byArchitecture } : {}),
    source,
    rows: f.rows,
  };
}
