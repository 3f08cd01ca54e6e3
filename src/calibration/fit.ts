// Fits the replay's corrections of the perf model (`overhead.replay` in the coefficient files) from
// user-path replays of measured rows (evaluate.ts) made WITHOUT corrections. Pure.
//
// Three parameters per (sku, backend) for agg, and three per backend (SKUs pooled) for disagg, each set
// fitted on its own mode's rows (disagg engines run on the kernel tables as timed, agg engines on the
// agg fit's kernel scale: coefficients.ts disaggEngineOverhead):
// * passScale s: every pass time × s, so a replay's TPOT and engine-side TTFT scale by s;
// * prefillScale k: the prefill part of every pass × k (before s; engine.ts `prefillScaledPassMs`):
//   prefill passes run eagerly, outside the CUDA graphs of the decode passes s is fitted on, and their
//   MoE / attention kernels run in other modes than the kernel tables time. Bounded to [0.5, 3].
//   Disagg: `disaggPrefillScale` on the prefill workers' prefill-only passes (the decode workers have
//   none), `disaggPassScale` on both pools;
// * admissionMs d (agg) / disaggAdmissionMs (disagg): the frontend's fixed latency (replay/frontend.ts:
//   HTTP, hand-off to the engine, first-token streaming; disagg adds the P/D handshake), adding d to TTFT;
// * admissionLagPasses L (agg): engine passes a request waits on a busy rank before its first scheduling
//   (rank-scheduler.ts), adding L pass times to TTFT (and E2E) but nothing to TPOT. Measured TTFT exceeds
//   the uncorrected replay by a roughly constant number of the engine's steps at every concurrency
//   (SGLang ~25, TRT-LLM MLA-MoE ~16, GQA ~5, vLLM ~4): a term that grows with the step time, which d,
//   the same at 4 clients as at 256, cannot follow. First order: L passes ≈ L · TPOT₀(k).
// Fitting uses the first-order model TTFT ≈ s·(TTFT₀(k) + L·TPOT₀(k)) + d, TPOT ≈ s·TPOT₀(k), where TTFT₀(k), TPOT₀(k)
// interpolate linearly between the uncorrected replay (k = 1) and one with the prefill part doubled
// (k = 2; `ttft2`/`tpot2`), so the fit sees how k lengthens a first token's wait — more with
// concurrency and prompt length — and the mixed passes TPOT averages. Per k: s from TPOT, d from TTFT;
// the (k, L) with the least TTFT + TPOT error wins (a coarse k grid × every L first, then k and L refined). A fixed latency alone overshoots light loads and
// undershoots heavy ones (signed TTFT error +15 % at 4 clients, −20 % at 128+ before k). First order is
// exact for s; d lowers the closed loop's load a little, which the optional refinement rounds of
// scripts/calibrate-replay.ts absorb. Objective: median |relative error|, as reported. Groups with fewer
// than `minRows` rows borrow the backend's pooled fit (all SKUs).
// Per architecture class (model/architecture-class.ts: GQA/MLA × dense/MoE, a public property of the
// model a user names), agg rows of a (sku, backend) with at least `minRows` rows of that class get their
// own s, k and d (`byArchitecture`): the residuals split by class — e.g. DeepSeek (MLA + MoE) on TRT-LLM
// carries TTFT the pass model does not explain while dense models on the same engine need none. Never
// per model or per row. A class with fewer than `minRows` rows in a (sku, backend) that has rows of other
// classes too gets an entry of its own s, L and d with its class's backend-pooled k (see "Small
// classes" below), not a fit over the other classes' rows. The (sku, backend) values serve classes
// without rows there; they are fitted on the rows without an own-fitted class when there are `minRows`
// of them, else on all of the group's agg rows.
import { replayCorrections, type ReplayCorrections, type ReplayOverhead } from '../hardware/perf/coefficients.js';
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
  /**
   * The same replay with the prefill part of every pass doubled (prefillScale 2, nothing else): how
   * the row's TTFT and TPOT respond to the prefill factor, read linearly in k. Absent: TTFT ∝ k and
   * TPOT independent of k (the cruder first order).
   */
  ttft2?: number;
  tpot2?: number;
  ttftMs: number;
  tpotMs: number;
}

/** A raw replay's TTFT under prefill factor k (before s and d): linear between the k = 1 and k = 2 replays. */
export function ttftAt(r: RawReplay, k: number): number {
  return r.ttft2 === undefined ? k * r.ttft0 : Math.max(1e-6, r.ttft0 + (k - 1) * (r.ttft2 - r.ttft0));
}

/** A raw replay's TPOT under prefill factor k (before s): mixed passes carry prefill chunks. */
export function tpotAt(r: RawReplay, k: number): number {
  return r.tpot2 === undefined ? r.tpot0 : Math.max(1e-6, r.tpot0 + (k - 1) * (r.tpot2 - r.tpot0));
}

/** The (sku, backend) a row's corrections are fitted for: the coefficient file they are written to. */
export function fitKey(r: Pick<RawReplay, 'sku' | 'backend'>): string {
  return `${r.sku}/${r.backend}`;
}

export interface ClassFit {
  passScale: number;
  prefillScale: number;
  admissionMs: number;
  admissionLagPasses?: number;
  rows: number;
}

export interface ReplayFit {
  passScale: number;
  prefillScale: number;
  admissionMs: number;
  /** Agg admission lag in engine passes (absent: 0). */
  admissionLagPasses?: number;
  disaggAdmissionMs: number;
  /** Disaggregated serving's pass scale and prefill-worker prefill factor (absent: no disagg rows). */
  disaggPassScale?: number;
  disaggPrefillScale?: number;
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

/** The first of `xs` with the least `err` (ties keep the earlier), unless `from` (a best already found) is better. */
function argminOver(err: (x: number) => number, xs: readonly number[], from: { x: number; err: number }): { x: number; err: number } {
  let best = from;
  for (const x of xs) {
    const e = err(x);
    if (e < best.err - 1e-12) best = { x, err: e };
  }
  return best;
}

const steps = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

function bestScale(rows: readonly RawReplay[], k: number): { s: number; err: number } {
  if (rows.length === 0) return { s: 1, err: 0 };
  const t = rows.map((r) => tpotAt(r, k) / r.tpotMs);
  const errAt = (x: number): number => medianAbs(t.map((v) => Math.abs(x * v - 1)));
  // Coarse (0.02) then fine (0.005) around the coarse optimum, over [0.5, 2].
  const coarse = argminOver(errAt, steps(0, 75).map((i) => 0.5 + 0.02 * i), { x: 1, err: Infinity });
  const fine = steps(-4, 4)
    .map((i) => Math.round((coarse.x + 0.005 * i) * 1000) / 1000)
    .filter((x) => x >= 0.5 && x <= 2);
  const best = argminOver(errAt, fine, coarse);
  return { s: Math.round(best.x * 1000) / 1000, err: best.err };
}

/** s minimising median |s·TPOT₀(k)/TPOT − 1| over [0.5, 2] (grid of 0.005; k = 1 unless given). */
export function fitPassScale(rows: readonly RawReplay[], prefillScale = 1): number {
  return bestScale(rows, prefillScale).s;
}

/** Bounds of the prefill factor k (a factor the pass model could be off by on eager prefill passes). */
export const PREFILL_SCALE_RANGE = [0.5, 3] as const;

function bestAdmission(rows: readonly RawReplay[], a: (r: RawReplay) => number): { d: number; err: number } {
  if (rows.length === 0) return { d: 0, err: 0 };
  const base = rows.map((r) => a(r));
  const errAt = (d: number): number => medianAbs(rows.map((r, i) => Math.abs((base[i] + d) / r.ttftMs - 1)));
  // Coarse (10 ms) then fine (1 ms) around the coarse optimum, up to 1 s.
  const coarse = argminOver(errAt, steps(0, 100).map((i) => 10 * i), { x: 0, err: Infinity });
  const best = argminOver(errAt, steps(Math.max(0, coarse.x - 10), Math.min(1000, coarse.x + 10)), coarse);
  return { d: best.x, err: best.err };
}

export interface GroupFit {
  passScale: number;
  prefillScale: number;
  admissionMs: number;
  admissionLagPasses: number;
}

/** Admission lags tried (engine passes): every one to 12, then every other to 40. */
export const ADMISSION_LAGS: readonly number[] = [...steps(0, 12), ...steps(7, 20).map((i) => 2 * i)];

/**
 * (s, k, d, L) of one group: for each k over PREFILL_SCALE_RANGE, s from TPOT (on `tpotRows`); for each
 * admission lag L (when `withLag`), d from TTFT (on `ttftRows`, 0 when `withAdmission` is false). The
 * (k, L) with the least median TTFT + TPOT error wins (ties: the k closest to 1, the tables as they
 * are, then the smaller L). Searched on a 0.1 grid of k × every L of ADMISSION_LAGS first, then on a
 * 0.025 grid of k within ±0.075 and L within ±3 of that optimum.
 */
export function fitGroup(ttftRows: readonly RawReplay[], tpotRows: readonly RawReplay[], withAdmission: boolean, fixedK?: number, withLag = false): GroupFit {
  if (ttftRows.length === 0) return { passScale: bestScale(tpotRows, fixedK ?? 1).s, prefillScale: fixedK ?? 1, admissionMs: 0, admissionLagPasses: 0 };
  let best: GroupFit = { passScale: 1, prefillScale: 1, admissionMs: 0, admissionLagPasses: 0 };
  let bestErr = Infinity;
  const [lo, hi] = PREFILL_SCALE_RANGE;
  const grid = (from: number, to: number, step: number): number[] => {
    const ks: number[] = [];
    for (let i = 0; from + step * i <= to + 1e-9; i++) ks.push(Math.round((from + step * i) * 1000) / 1000);
    return ks.sort((a, b) => Math.abs(a - 1) - Math.abs(b - 1) || a - b);
  };
  const tryAt = (ks: readonly number[], lags: readonly number[]): void => {
    for (const k of ks) {
      const sc = bestScale(tpotRows, k);
      for (const L of lags) {
        const a = (r: RawReplay): number => sc.s * (ttftAt(r, k) + L * tpotAt(r, k));
        const t = withAdmission ? bestAdmission(ttftRows, a) : { d: 0, err: medianAbs(ttftRows.map((r) => Math.abs(a(r) / r.ttftMs - 1))) };
        const err = t.err + sc.err;
        if (err < bestErr - 1e-9) {
          bestErr = err;
          best = { passScale: sc.s, prefillScale: k, admissionMs: t.d, admissionLagPasses: L };
        }
      }
    }
  };
  const lags = withLag ? ADMISSION_LAGS : [0];
  if (fixedK !== undefined) {
    tryAt([fixedK], lags);
    return best;
  }
  tryAt(grid(lo, hi, 0.1), lags);
  const k0 = best.prefillScale;
  const L0 = best.admissionLagPasses;
  tryAt(
    grid(Math.max(lo, k0 - 0.075), Math.min(hi, k0 + 0.075), 0.025),
    withLag ? steps(Math.max(0, L0 - 3), L0 + 3) : [0],
  );
  return best;
}

/** The replay block of the second fitting replay: the prefill part of every pass doubled (agg and disagg prefill workers), nothing else. */
export const PREFILL_DOUBLED: ReplayOverhead = { passScale: 1, prefillScale: 2, admissionMs: 0, disaggAdmissionMs: 0, disaggPrefillScale: 2, source: 'calibration: prefill doubled', rows: 0 };


/** Which admission delays to fit: none, only disaggregated serving's, or both. */
export type AdmissionFit = 'none' | 'disagg' | 'all';

/** Fits per (sku, backend); returns one fit per `sku/backend` key present in `rows`. Delays not in `admission` stay 0. */
export function fitReplayOverheads(
  rows: readonly RawReplay[],
  minRows = 12,
  admission: AdmissionFit = 'all',
  /** `sku/backend` keys to fit even without rows of their own (their backend's pooled values). */
  alsoKeys: readonly string[] = [],
  /** Fit the agg admission lag (with the agg latency; false: L = 0). */
  withLag = true,
  /** Small classes get their own s, L and d with their class's backend-pooled k (false: the (sku, backend) values). */
  smallClasses = true,
): Map<string, ReplayFit> {
  const byKey = new Map<string, RawReplay[]>();
  const byBackend = new Map<string, RawReplay[]>();
  for (const k of alsoKeys) byKey.set(k, []);
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
  const aggFitted = admission === 'all';
  const lag = aggFitted && withLag;
  // Aggregated and disaggregated corrections are fitted apart, each on its own rows: disaggregated
  // engines run on the kernel tables as timed (coefficients.ts disaggEngineOverhead), aggregated ones
  // on the agg fit's kernel scale, so their pass scales describe different pass models.
  // Per backend, all SKUs pooled: the fallback of groups without rows enough of their own.
  const pooled = new Map<string, GroupFit>();
  for (const [b, rs] of byBackend) pooled.set(b, fitGroup(aggOf(rs), aggOf(rs), aggFitted, undefined, lag));
  const own = new Map<string, GroupFit>();
  for (const [k, rs] of byKey) {
    const agg = aggOf(rs);
    const p = pooled.get(k.split('/')[1]) ?? { passScale: 1, prefillScale: 1, admissionMs: 0, admissionLagPasses: 0 };
    if (agg.length < minRows) own.set(k, agg.length > 0 ? { ...p, passScale: fitPassScale(agg, p.prefillScale) } : p);
    else own.set(k, fitGroup(restOr(agg), restOr(agg), aggFitted, undefined, lag));
  }
  // Disaggregated rows are few: the prefill workers' prefill factor k and the frontend's latency d (P/D
  // handshake included) are fitted on all disagg rows together, backends and SKUs pooled, and only the
  // pass scale s of both pools per backend (from TPOT, which pins it with few rows). Three parameters
  // per backend followed a fold's handful of rows: fitted on one half of the 28 rows, SGLang's k ran
  // 0.875 on one and 1.975 on the other, TRT-LLM's d 39 and 967 ms (held-out TTFT 45 %, first order;
  // k and d pooled: 23 %). (Per SKU the median fit would follow whichever deployment style has the most
  // rows: B200 TRT-LLM's 13 rows split 7 TP decode rows measured at 0.6× the tables against 6
  // attention-DP ones at 1.1×.)
  const disaggPooled = new Map<string, GroupFit>();
  const disaggRows = rows.filter((r) => r.mode === 'disagg');
  if (disaggRows.length > 0) {
    const shared = fitGroup(disaggRows, disaggRows, admission !== 'none');
    for (const [b, rs] of byBackend) {
      const d = rs.filter((r) => r.mode === 'disagg');
      if (d.length > 0) disaggPooled.set(b, { ...fitGroup(d, d, false, shared.prefillScale), admissionMs: shared.admissionMs });
    }
  }
  // Small classes: a class with rows in a (sku, backend) that also has rows of other classes, but fewer
  // than `minRows` of its own, is not fitted on the other classes' rows (a group fit over all of them
  // follows whichever class has most rows: on H200 SGLang, GLM-5's MLA-MoE rows pulled the shared
  // prefill factor from 1.425 to 0.525 and broke Llama-3.1-8B's 11 dense rows). Its own rows fit what
  // they pin: the pass scale s (TPOT), the latency d and the admission lag L (TTFT's level and its growth
  // with the step time). The prefill factor k — how TTFT grows with prompt length × concurrency, which a
  // handful of rows at a few shapes does not separate from d and L — comes from the same class on the
  // same backend with every SKU pooled (how that engine prefills that architecture), or from the
  // backend's pooled fit over all classes when the class has fewer than `minRows` rows there too.
  // Measured on the SGLang rows (user-path replays, 2 refine rounds), H200 in-sample / 2-fold held out
  // TTFT–TPOT: this 13.6–6.5 % / 16.6–14.7 %; the group fit over all classes 13.3–6.5 % / 32.9–14.5 %;
  // s alone on own rows (k, L, d pooled) 17.1–16.2 % / 38.0–12.6 %; s, d own with k pooled and L = 0
  // 13.6–14.7 % / 17.3–17.1 %; s, k, d own 12.6–12.5 % / 12.6–16.9 %. Only what a config implies:
  // SKU, backend, architecture class.
  const classPooled = new Map<string, GroupFit>();
  const classPool = (backend: string, cls: ArchitectureClass): GroupFit => {
    const key = `${backend}/${cls}`;
    if (!classPooled.has(key)) {
      const rs = aggOf(byBackend.get(backend) ?? []).filter((r) => r.arch === cls);
      classPooled.set(key, rs.length >= minRows ? fitGroup(rs, rs, aggFitted, undefined, lag) : (pooled.get(backend) ?? { passScale: 1, prefillScale: 1, admissionMs: 0, admissionLagPasses: 0 }));
    }
    return classPooled.get(key)!;
  };
  const out = new Map<string, ReplayFit>();
  for (const [k, rs] of byKey) {
    const agg = aggOf(rs);
    const g = own.get(k)!;
    const byArchitecture: Partial<Record<ArchitectureClass, ClassFit>> = {};
    const present = ARCHITECTURE_CLASSES.filter((cls) => agg.some((r) => r.arch === cls));
    for (const cls of present) {
      const mine = agg.filter((r) => r.arch === cls);
      if (ownClasses.get(k)!.includes(cls)) {
        const t = fitGroup(mine, mine, aggFitted, undefined, lag);
        byArchitecture[cls] = { passScale: t.passScale, prefillScale: t.prefillScale, admissionMs: aggFitted ? t.admissionMs : g.admissionMs, ...(t.admissionLagPasses > 0 ? { admissionLagPasses: t.admissionLagPasses } : {}), rows: mine.length };
      } else if (smallClasses && present.length > 1 && mine.length < minRows) {
        const t = fitGroup(mine, mine, aggFitted, classPool(k.split('/')[1], cls).prefillScale, lag);
        byArchitecture[cls] = { passScale: t.passScale, prefillScale: t.prefillScale, admissionMs: aggFitted ? t.admissionMs : g.admissionMs, ...(t.admissionLagPasses > 0 ? { admissionLagPasses: t.admissionLagPasses } : {}), rows: mine.length };
      }
    }
    const dg = disaggPooled.get(k.split('/')[1]);
    out.set(k, {
      passScale: g.passScale,
      prefillScale: g.prefillScale,
      admissionMs: g.admissionMs,
      ...(g.admissionLagPasses > 0 ? { admissionLagPasses: g.admissionLagPasses } : {}),
      disaggAdmissionMs: dg?.admissionMs ?? 0,
      ...(dg ? { disaggPassScale: dg.passScale, disaggPrefillScale: dg.prefillScale } : {}),
      rows: rs.length,
      ...(Object.keys(byArchitecture).length > 0 ? { byArchitecture } : {}),
    });
  }
  return out;
}

/** The pass scale, prefill factor and admission delay a fit applies to one row (its class's, for agg rows that have one). */
export function correctionsFor(r: Pick<RawReplay, 'mode' | 'arch'>, f: ReplayFit): ReplayCorrections {
  return replayCorrections(f, r.mode, r.arch);
}

/** First-order prediction of a raw replay under a fit (what the fit optimises). */
export function predictRaw(r: RawReplay, f: ReplayFit): { ttftMs: number; tpotMs: number } {
  const c = correctionsFor(r, f);
  const tpotK = tpotAt(r, c.prefillScale);
  return { ttftMs: c.passScale * (ttftAt(r, c.prefillScale) + c.admissionLagPasses * tpotK) + c.admissionMs, tpotMs: c.passScale * tpotK };
}

/**
 * A replay made under fit f, mapped back to raw terms — the raw replay that predictRaw would turn into
 * it: TTFT₀(k) := (TTFT − d)/s − L·TPOT₀(k) and TPOT₀(k) := TPOT/s, the k = 1 and k = 2 replays shifted alike (or,
 * without those, TTFT₀ := (TTFT − d)/(s·k)). The fixed-point refinement of calibrate-replay.ts.
 */
export function unapplyFit(x: RawReplay, corrected: { ttftMs: number; tpotMs: number }, f: ReplayFit): RawReplay {
  const c = correctionsFor(x, f);
  const tpotK = corrected.tpotMs / c.passScale;
  const ttftK = Math.max(1e-6, (corrected.ttftMs - c.admissionMs) / c.passScale - c.admissionLagPasses * tpotK);
  if (x.ttft2 === undefined || x.tpot2 === undefined) return { ...x, ttft0: ttftK / c.prefillScale, tpot0: tpotK };
  const dT = ttftK - ttftAt(x, c.prefillScale);
  const dP = tpotK - tpotAt(x, c.prefillScale);
  return { ...x, ttft0: x.ttft0 + dT, ttft2: x.ttft2 + dT, tpot0: x.tpot0 + dP, tpot2: x.tpot2 + dP };
}

export function toReplayOverhead(f: ReplayFit, source: string): ReplayOverhead {
  return {
    passScale: f.passScale,
    prefillScale: f.prefillScale,
    admissionMs: f.admissionMs,
    ...(f.admissionLagPasses ? { admissionLagPasses: f.admissionLagPasses } : {}),
    disaggAdmissionMs: f.disaggAdmissionMs,
    ...(f.disaggPassScale !== undefined ? { disaggPassScale: f.disaggPassScale } : {}),
    ...(f.disaggPrefillScale !== undefined ? { disaggPrefillScale: f.disaggPrefillScale } : {}),
    ...(f.byArchitecture ? { byArchitecture: f.byArchitecture } : {}),
    source,
    rows: f.rows,
  };
}
