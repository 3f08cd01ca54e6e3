// Fits the replay's corrections of the perf model (`overhead.replay` in the coefficient files) from
// user-path replays of measured rows (evaluate.ts) made WITHOUT corrections. Pure.
//
// Two parameters per (sku, backend) and one per backend for disagg:
// * passScale s: every pass time × s, so a replay's TPOT and engine-side TTFT scale by s;
// * admissionMs d (agg) / disaggAdmissionMs (disagg): the frontend's fixed latency (replay/frontend.ts:
//   HTTP, hand-off to the engine, first-token streaming; disagg adds the P/D handshake), adding d to TTFT.
// Fitting uses the first-order model TTFT ≈ s·TTFT₀ + d, TPOT ≈ s·TPOT₀ (exact for s; d slightly
// lowers the closed loop's load, which the refinement rounds of scripts/calibrate-replay.ts absorb).
// Objective: median |relative error|, as reported. Groups with fewer than `minRows` rows borrow the
// backend's pooled fit (all SKUs).
// Per architecture class (model/architecture-class.ts: GQA/MLA × dense/MoE, a public property of the
// model a user names), agg rows of a (sku, backend) with at least `minRows` rows of that class get their
// own s and d (`byArchitecture`): the residuals split by class — e.g. DeepSeek (MLA + MoE) on TRT-LLM
// carries TTFT the pass model does not explain while dense models on the same engine need none. Never
// per model or per row. The (sku, backend) values serve the rest — classes without an entry and disagg
// rows — so they are fitted on those rows when there are `minRows` of them, else on all of the group's.
import { replayCorrections, type ReplayOverhead } from '../hardware/perf/coefficients.js';
import { ARCHITECTURE_CLASSES, type ArchitectureClass } from '../model/architecture-class.js';

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

/** Fits per (sku, backend); returns one fit per `sku/backend` key present in `rows`. Delays not in `admission` stay 0. */
export function fitReplayOverheads(
  rows: readonly RawReplay[],
  minRows = 12,
  admission: AdmissionFit = 'all',
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
  const aggFitted = (_b: string): boolean => admission === 'all';
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
  return { ttftMs: c.passScale * r.ttft0 + c.admissionMs, tpotMs: c.passScale * r.tpot0 };
}

/**
 * A replay made under fit f, mapped back to raw terms (TTFT₀ := (TTFT − d)/s, TPOT₀ := TPOT/s): the
 * fixed-point refinement of calibrate-replay.ts.
 */
export function unapplyFit(x: RawReplay, corrected: { ttftMs: number; tpotMs: number }, f: ReplayFit): RawReplay {
  const c = correctionsFor(x, f);
  return { ...x, ttft0: Math.max(1e-6, (corrected.ttftMs - c.admissionMs) / c.passScale), tpot0: corrected.tpotMs / c.passScale };
}

export function toReplayOverhead(f: ReplayFit, source: string): ReplayOverhead {
  return {
    passScale: f.passScale,
    admissionMs: f.admissionMs,
    disaggAdmissionMs: f.disaggAdmissionMs,
    ...(f.byArchitecture ? { byArchitecture: f.byArchitecture } : {}),
    source,
    rows: f.rows,
  };
}
