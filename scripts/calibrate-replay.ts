// `node --import tsx scripts/calibrate-replay.ts`: fits the replay's corrections of the perf model
// (`overhead.replay` in systems/coefficients/<sku>/<backend>.json: pass-time scale and the frontend's
// fixed latency, per architecture class where a class has rows enough) against measured TTFT/TPOT of
// e2e/silicon_dev.csv (agg + disagg). Every row is replayed through the user path (src/calibration/
// evaluate.ts: the row's config, loaded and replayed as `spica replay` does, reading the report's
// mean_ttft_ms / mean_tpot_ms) with coefficient files stripped of their replay block, then the fit
// (src/calibration/fit.ts) is refined by replaying with it (--refine rounds), and written.
// Reports in-sample and 2-fold held-out (row-id hash) errors; `npm run bench accuracy` replays again
// with the written files. Run after `npm run calibrate` (which rewrites the files without this block).
// The fit also needs each row replayed once with the prefill part of every pass doubled (prefill factor
// k = 2, nothing else), to read how TTFT and TPOT respond to k (fit.ts).
// Options: --out DIR  --admission all|disagg|none (default all)  --dry-run  --refine N (default 2: the committed fits are refined twice)
//          --verify (replay with the final fits: in-sample and 2-fold held out)
//          --only agg|disagg (replay and refit one mode's rows and rewrite only its fields: the agg and
//          disagg corrections are fitted apart, on their own rows, so either can be redone alone)
import { parseArgs } from 'node:util';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clearCoefficientsCache, coefficientsPath, coefficientsSchema, defaultCoefficientsDir, type ReplayOverhead } from '../src/hardware/perf/coefficients.js';
import { perfdbDir, readRooflineRef } from '../src/hardware/perf/perfdbTables.js';
import { coefficientsWith, removeCoefficients } from '../src/calibration/coefficientsDir.js';
import { formatAccuracyReport, replayRow, summariseResults, type RowResult } from '../src/calibration/evaluate.js';
import { fitKey, fitReplayOverheads, PREFILL_DOUBLED, predictRaw, toReplayOverhead, unapplyFit, type AdmissionFit, type RawReplay, type ReplayFit } from '../src/calibration/fit.js';
import { loadE2eRows, type E2eRow } from '../src/calibration/rows.js';
import { foldOf } from '../src/calibration/subset.js';
import { architectureClassOf } from '../src/model/architecture-class.js';

const { values } = parseArgs({ options: { out: { type: 'string' }, admission: { type: 'string' }, 'dry-run': { type: 'boolean' }, verify: { type: 'boolean' }, refine: { type: 'string' }, only: { type: 'string' } } });
const only = values.only as 'agg' | 'disagg' | undefined;
if (only !== undefined && only !== 'agg' && only !== 'disagg') {
  console.error(`calibrate-replay: --only must be agg or disagg (got '${only}')`);
  process.exit(2);
}
const refineRounds = Number(values.refine ?? 2);
const admission = (values.admission ?? 'all') as AdmissionFit;
if (!['all', 'disagg', 'none'].includes(admission)) {
  console.error(`calibrate-replay: --admission must be all, disagg or none (got '${admission}')`);
  process.exit(2);
}
const outDir = values.out ?? defaultCoefficientsDir();
const dir = perfdbDir();
const t0 = Date.now();
const rows = loadE2eRows(dir, (sku) => Boolean(readRooflineRef(dir, sku).flops.fp4)).rows.filter((r) => !only || r.mode === only);
const byId = new Map(rows.map((r) => [r.id, r]));

/** Replays `rs` with the coefficient files carrying fits `fitOf` (undefined everywhere: raw). */
function replayAll(rs: readonly E2eRow[], fitOf: (key: string) => ReplayFit | undefined): Map<string, RowResult> {
  const coeffs = coefficientsWith(outDir, (k) => {
    const f = fitOf(k);
    return f ? toReplayOverhead(f, 'calibrate-replay (trial)') : undefined;
  });
  return replayIn(rs, coeffs);
}

/** Replays `rs` with the coefficient files in `coeffs`, then removes that directory. */
function replayIn(rs: readonly E2eRow[], coeffs: string): Map<string, RowResult> {
  const out = new Map<string, RowResult>();
  try {
    for (const r of rs) {
      try {
        out.set(r.id, replayRow(r, { coefficientsDir: coeffs }));
      } catch {
        // Rows the replay cannot run (KV-infeasible) are reported by the bench.
      }
    }
  } finally {
    removeCoefficients(coeffs);
  }
  return out;
}

const rawReplays = replayAll(rows, () => undefined);
const doubled = replayIn(rows, coefficientsWith(outDir, () => PREFILL_DOUBLED));
const raw: RawReplay[] = [];
for (const [id, x] of rawReplays) {
  const r = byId.get(id)!;
  const y = doubled.get(id);
  raw.push({ id, sku: r.sku, backend: r.backend, mode: r.mode, arch: architectureClassOf(r.model), ttft0: x.ttftMs, tpot0: x.tpotMs, ...(y ? { ttft2: y.ttftMs, tpot2: y.tpotMs } : {}), ttftMs: r.ttftMs, tpotMs: r.tpotMs });
}
console.log(`replayed ${raw.length} of ${rows.length} rows without corrections and with the prefill doubled in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

const asResults = (rs: readonly RawReplay[], fitOf: (r: RawReplay) => ReplayFit | null): RowResult[] =>
  rs.map((r) => {
    const f = fitOf(r);
    const p = f ? predictRaw(r, f) : { ttftMs: r.ttft0, tpotMs: r.tpot0 };
    return { id: r.id, key: `${r.sku}/${r.backend}/${r.mode}`, measuredTtftMs: r.ttftMs, measuredTpotMs: r.tpotMs, ttftMs: p.ttftMs, tpotMs: p.tpotMs, ttftErr: p.ttftMs / r.ttftMs - 1, tpotErr: p.tpotMs / r.tpotMs - 1 };
  });
console.log(`\nwithout replay corrections:\n${formatAccuracyReport(summariseResults(asResults(raw, () => null)))}`);

// Every coefficient file gets a fit (files without rows of their own: their backend's pooled values).
const fileKeys = readdirSync(outDir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => readdirSync(join(outDir, d.name)).filter((f) => f.endsWith('.json')).map((f) => `${d.name}/${f.slice(0, -5)}`));
const fitOn = (rs: readonly RawReplay[]): Map<string, ReplayFit> => fitReplayOverheads(rs, 12, admission, only === 'disagg' ? fileKeys : []);
const inFold = (k: number) => raw.filter((r) => foldOf(r.id) === k);
let fit = fitOn(raw);
let folds = [0, 1].map((k) => fitOn(inFold(k)));
// Fixed-point refinement: replays under a fit, mapped back to raw terms of that fit, refitted — so the
// fit absorbs how the corrections change the closed loop (first order misses that). Each fold is
// refined on its own rows only, so the held-out figures stay held out.
const refined = (rs: readonly RawReplay[], fits: Map<string, ReplayFit>): RawReplay[] => {
  const again = replayAll(rs.map((x) => byId.get(x.id)!), (k) => fits.get(k));
  return rs.map((x) => {
    const y = again.get(x.id);
    return y ? unapplyFit(x, y, fits.get(fitKey(x))!) : x;
  });
};
for (let round = 1; round <= refineRounds; round++) {
  const t1 = Date.now();
  fit = fitOn(refined(raw, fit));
  folds = [0, 1].map((k) => fitOn(refined(inFold(k), folds[k])));
  console.log(`refine round ${round}: ${((Date.now() - t1) / 1000).toFixed(1)} s`);
}
const inSample = summariseResults(asResults(raw, (r) => fit.get(fitKey(r)) ?? null));
console.log(`\nin-sample (first order on the raw replays):\n${formatAccuracyReport(inSample)}`);
const heldOut = summariseResults(asResults(raw, (r) => folds[1 - foldOf(r.id)].get(fitKey(r)) ?? null));
console.log(`\nheld out (2-fold by id hash: each row predicted by the fit on the other fold):\n${formatAccuracyReport(heldOut)}`);

if (values.verify) {
  const t1 = Date.now();
  const ofFold = (k: number) => rows.filter((r) => foldOf(r.id) === k);
  const v = [...replayAll(rows, (k) => fit.get(k)).values()];
  console.log(`\nverified in-sample (replayed with the fit):\n${formatAccuracyReport(summariseResults(v))}`);
  const h = [0, 1].flatMap((k) => [...replayAll(ofFold(k), (key) => folds[1 - k].get(key)).values()]);
  console.log(`\nverified held out (replayed with the other fold's fit):\n${formatAccuracyReport(summariseResults(h))}`);
  console.log(`verification replays: ${((Date.now() - t1) / 1000).toFixed(1)} s`);
}

const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;
for (const [k, f] of [...fit].sort(([a], [b]) => a.localeCompare(b))) {
  const [sku, backend] = k.split('/');
  const path = coefficientsPath(outDir, sku, backend);
  const file = JSON.parse(readFileSync(path, 'utf8')) as { overhead: { replay?: ReplayOverhead } };
  coefficientsSchema.parse(file);
  const before = file.overhead.replay;
  const mine = (g: string): string => {
    const a = inSample.groups.find((x) => x.key === `${k}/${g}`);
    const h = heldOut.groups.find((x) => x.key === `${k}/${g}`);
    return a && h ? `${g} TTFT ${pct(a.ttftMedian)} (held-out ${pct(h.ttftMedian)}), TPOT ${pct(a.tpotMedian)} (held-out ${pct(h.tpotMedian)})` : `${g}: no rows`;
  };
  const source = `fitted:user-path replay of e2e/silicon_dev.csv rows of ${k} (${f.rows} rows; pass scale, prefill factor, admission lag, frontend latency fitted: ${admission}, disagg prefill factor and latency pooled over backends and SKUs) by scripts/calibrate-replay.ts at ${new Date().toISOString()}; first-order median |rel err| ${mine('agg')}; ${mine('disagg')}`;
  const fitted = toReplayOverhead(f, source);
  if (only && !before) throw new Error(`calibrate-replay --only ${only}: ${path} has no replay block to keep the other mode's fields of`);
  // --only: this mode's fields from the fit, the other mode's kept as they are.
  const DISAGG_FIELDS = ['disaggAdmissionMs', 'disaggPassScale', 'disaggPrefillScale'] as const;
  let merged: ReplayOverhead = fitted;
  if (only === 'disagg') {
    // The note of an earlier --only disagg run is replaced, not kept.
    const kept = before!.source.replace(/; disagg refitted by calibrate-replay --only disagg .*$/, '');
    merged = { ...before!, source: `${kept}; disagg refitted by calibrate-replay --only disagg at ${new Date().toISOString()}: ${mine('disagg')}` };
    for (const x of DISAGG_FIELDS) delete merged[x];
    merged = { ...merged, disaggAdmissionMs: fitted.disaggAdmissionMs, ...(fitted.disaggPassScale !== undefined ? { disaggPassScale: fitted.disaggPassScale } : {}), ...(fitted.disaggPrefillScale !== undefined ? { disaggPrefillScale: fitted.disaggPrefillScale } : {}) };
  } else if (only === 'agg') {
    merged = { ...fitted, source: `${fitted.source} (agg rows only; disagg fields kept)`, disaggAdmissionMs: before!.disaggAdmissionMs };
    for (const x of DISAGG_FIELDS.slice(1)) delete merged[x];
    if (before!.disaggPassScale !== undefined) merged.disaggPassScale = before!.disaggPassScale;
    if (before!.disaggPrefillScale !== undefined) merged.disaggPrefillScale = before!.disaggPrefillScale;
  }
  file.overhead.replay = merged;
  const { source: _s, ...shown } = merged;
  console.log(`${k}: ${JSON.stringify(shown)}`);
  if (!values['dry-run']) writeFileSync(path, `${JSON.stringify(file)}\n`);
}
clearCoefficientsCache();
console.log(`calibrate-replay: ${values['dry-run'] ? 'dry run, nothing written' : `wrote ${fit.size} files under ${outDir}`} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
