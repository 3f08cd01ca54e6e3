// `node --import tsx scripts/calibrate-replay.ts`: fits the replay's corrections of the perf model
// (`overhead.replay` in systems/coefficients/<sku>/<backend>.json: pass-time scale and admission
// delays, per architecture class where a class has rows enough) against measured TTFT/TPOT of
// e2e/silicon_dev.csv (agg + disagg), replaying every row once without corrections — rows whose replay
// would emit more than --max-work tokens with fewer requests (never under 2 × concurrency), exactly as
// `npm run bench accuracy` replays them; agg rows are read in the 'benchmark' window (evaluate.ts), at a
// burst share fitted per (sku, backend) with the corrections (replayFit.ts `fitBurstShares`).
// Reports in-sample and 2-fold held-out (row-id hash) errors of the first-order fit; the bench
// (`npm run bench accuracy`) replays again with the written corrections for the true figures.
// Run after `npm run calibrate` (which rewrites the files without this block).
// Admission delays (--admission all|disagg|none, default all): disagg delays per backend (SKUs pooled);
// agg delays per (sku, backend) only for backends whose agg rows the harness desynchronises with a
// length spread (rowSpec.ts; since 2026-11-30 all three — SGLang rows of the lock-step gap-sweep harness
// keep exact lengths but share their (sku, backend) delay). In a phase-locked fixed-length loop the first-order model
// TTFT ≈ s·TTFT₀ + d does not hold — the delay re-synchronises requests into prefill waves (one c=4
// row: +232 ms TTFT for d = 72 ms; verified agg TTFT 57.5 % vs 35.0 % without) — while in the
// desynchronised loop it verifies close to first order (--verify prints both).
// Options: --out DIR  --max-work N (default 5e5: every row, ~75 s per pass on a shared machine)
//          --admission all|disagg|none (default all)  --dry-run
//          --verify (replay again with the fitted corrections: in-sample and 2-fold held out)
//          --refine N (default 1): fixed-point rounds — replay with the current fit and refit on those
//            replays (TTFT₀ := (TTFT − d)/s, TPOT₀ := TPOT/s), so the fit absorbs how the corrections change
//            the closed loop (a delay lowers the load and with it TPOT; first order misses that). Each fold
//            is refined on its own rows only, so the held-out figures stay held out.
//          --length-spread S (experiments only: the harness's per-request length spread, rowSpec.ts)
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { clearCoefficientsCache, coefficientsPath, coefficientsSchema, defaultCoefficientsDir } from '../src/hardware/perf/coefficients.js';
import { perfdbDir, readRooflineRef } from '../src/hardware/perf/perfdbTables.js';
import { formatAccuracyReport, replayRow, summariseResults, type RowResult } from '../src/replay/accuracy/evaluate.js';
import { fitKey, fitWithBurstShares, predictRaw, unapplyFit, toReplayOverhead, type AdmissionFit, type RawReplay, type ReplayFit } from '../src/replay/accuracy/replayFit.js';
import { AGG_LENGTH_SPREAD } from '../src/replay/accuracy/rowSpec.js';
import { architectureClassOf } from '../src/model/architecture-class.js';
import { loadE2eRows } from '../src/replay/accuracy/rows.js';
import { foldOf } from '../src/replay/accuracy/subset.js';

const { values } = parseArgs({ options: { out: { type: 'string' }, 'max-work': { type: 'string' }, admission: { type: 'string' }, 'dry-run': { type: 'boolean' }, verify: { type: 'boolean' }, 'length-spread': { type: 'string' }, refine: { type: 'string' } } });
const refineRounds = Number(values.refine ?? 1);
const lengthSpread = values['length-spread'] === undefined ? undefined : Number(values['length-spread']);
const admission = (values.admission ?? 'all') as AdmissionFit;
if (!['all', 'disagg', 'none'].includes(admission)) {
  console.error(`calibrate-replay: --admission must be all, disagg or none (got '${admission}')`);
  process.exit(2);
}
const outDir = values.out ?? defaultCoefficientsDir();
const maxWork = Number(values['max-work'] ?? 5e5);
const dir = perfdbDir();
const t0 = Date.now();

const { rows } = loadE2eRows(dir, (sku) => Boolean(readRooflineRef(dir, sku).flops.fp4));
const byId = new Map(rows.map((r) => [r.id, r]));
const raw: RawReplay[] = [];
let failed = 0;
for (const r of rows) {
  try {
    const x = replayRow(r, { coefficientsDir: outDir, lengthSpread, maxWork, replayOverhead: null });
    raw.push({ id: r.id, sku: r.sku, backend: r.backend, mode: r.mode, arch: architectureClassOf(r.model), ttft0: x.ttftMs, tpot0: x.tpotMs, ttftMs: r.ttftMs, tpotMs: r.tpotMs, ...(x.parts ? { parts: x.parts } : {}) });
  } catch (err) {
    failed++;
    if (failed <= 5) console.warn(`  ${r.id}: ${(err as Error).message}`);
  }
}
console.log(`replayed ${raw.length} of ${rows.length} rows (requests capped at --max-work ${maxWork} tokens, ${failed} failed) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

const asResults = (rs: readonly RawReplay[], fitOf: (r: RawReplay) => ReplayFit | null): RowResult[] =>
  rs.map((r) => {
    const p = fitOf(r) ? predictRaw(r, fitOf(r)!) : { ttftMs: r.ttft0, tpotMs: r.tpot0 };
    return { id: r.id, key: `${r.sku}/${r.backend}/${r.mode}`, measuredTtftMs: r.ttftMs, measuredTpotMs: r.tpotMs, ttftMs: p.ttftMs, tpotMs: p.tpotMs, ttftErr: p.ttftMs / r.ttftMs - 1, tpotErr: p.tpotMs / r.tpotMs - 1 };
  });

console.log(`\nwithout replay corrections:\n${formatAccuracyReport(summariseResults(asResults(raw, () => null)))}`);
// An agg admission delay only where the harness desynchronises the loop (rowSpec.ts): in a phase-locked
// fixed-length loop the delay re-synchronises requests into prefill waves instead of adding to TTFT.
const aggAdmissionFor = (): boolean => (lengthSpread ?? AGG_LENGTH_SPREAD) > 0;
let fit = fitWithBurstShares(raw, 12, admission, aggAdmissionFor);
let folds = [0, 1].map((k) => fitWithBurstShares(raw.filter((r) => foldOf(r.id) === k), 12, admission, aggAdmissionFor));
// Fixed-point refinement (see --refine): replays under a fit, mapped back to "raw" terms of that fit.
const refined = (rs: readonly RawReplay[], fitOf: (r: RawReplay) => ReplayFit | undefined): RawReplay[] => {
  const out: RawReplay[] = [];
  for (const x of rs) {
    const f = fitOf(x);
    if (!f) continue;
    try {
      const y = replayRow(byId.get(x.id)!, { coefficientsDir: outDir, lengthSpread, maxWork, replayOverhead: toReplayOverhead(f, 'refine') });
      out.push(unapplyFit(x, y, f));
    } catch {
      out.push(x);
    }
  }
  return out;
};
for (let round = 1; round <= refineRounds; round++) {
  const t1 = Date.now();
  const mainFit = fit;
  const foldFits = folds;
  fit = fitWithBurstShares(refined(raw, (r) => mainFit.get(fitKey(r))), 12, admission, aggAdmissionFor);
  folds = [0, 1].map((k) => {
    const mine = raw.filter((r) => foldOf(r.id) === k);
    return fitWithBurstShares(refined(mine, (r) => foldFits[k].get(fitKey(r))), 12, admission, aggAdmissionFor);
  });
  console.log(`refine round ${round}: ${((Date.now() - t1) / 1000).toFixed(1)} s`);
}
const inSample = summariseResults(asResults(raw, (r) => fit.get(fitKey(r)) ?? null));
console.log(`\nin-sample (fitted on all rows, first-order on the unrefined replays):\n${formatAccuracyReport(inSample)}`);
const heldOut = summariseResults(asResults(raw, (r) => folds[1 - foldOf(r.id)].get(fitKey(r)) ?? null));
console.log(`\nheld out (2-fold by id hash: each row predicted by the fit on the other fold):\n${formatAccuracyReport(heldOut)}`);

// --verify: replay every row again WITH the fitted corrections (first order ignores how they change the
// closed loop): in-sample with the full fit, and held out with the other fold's fit.
if (values.verify) {
  const t1 = Date.now();
  const replayWith = (fitOf: (r: RawReplay) => ReplayFit | undefined): RowResult[] => {
    const done: RowResult[] = [];
    for (const x of raw) {
      const f = fitOf(x);
      try {
        done.push(replayRow(byId.get(x.id)!, { coefficientsDir: outDir, lengthSpread, maxWork, replayOverhead: f ? toReplayOverhead(f, 'verify') : null }));
      } catch {
        // A row that replays raw but not corrected is reported by the bench; skip it here.
      }
    }
    return done;
  };
  console.log(`\nverified in-sample (replayed with the fit):\n${formatAccuracyReport(summariseResults(replayWith((r) => fit.get(fitKey(r)))))}`);
  console.log(`\nverified held out (replayed with the other fold's fit):\n${formatAccuracyReport(summariseResults(replayWith((r) => folds[1 - foldOf(r.id)].get(fitKey(r)))))}`);
  console.log(`verification replays: ${((Date.now() - t1) / 1000).toFixed(1)} s`);
}

const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;
for (const [k, f] of [...fit].sort(([a], [b]) => a.localeCompare(b))) {
  const [sku, backend] = k.split('/');
  const path = coefficientsPath(outDir, sku, backend);
  // Edit the JSON as read (validated first) so fields this script does not know survive.
  const file = JSON.parse(readFileSync(path, 'utf8')) as { overhead: { replay?: unknown } };
  coefficientsSchema.parse(file);
  const mine = (g: string): string => {
    const a = inSample.groups.find((x) => x.key === `${k}/${g}`);
    const h = heldOut.groups.find((x) => x.key === `${k}/${g}`);
    return a && h ? `${g} TTFT ${pct(a.ttftMedian)} (held-out ${pct(h.ttftMedian)}), TPOT ${pct(a.tpotMedian)} (held-out ${pct(h.tpotMedian)})` : `${g}: no rows`;
  };
  const source = `fitted:replay of e2e/silicon_dev.csv rows of ${k} (${f.rows} rows; pass scale, admission delays fitted: ${admission}, disagg delay pooled over SKUs; agg burst share ${f.burstShare ?? 'steady-state'}) by scripts/calibrate-replay.ts at ${new Date().toISOString()}; first-order median |rel err| ${mine('agg')}; ${mine('disagg')}`;
  file.overhead.replay = toReplayOverhead(f, source);
  console.log(`${k}: ${JSON.stringify({ passScale: f.passScale, admissionMs: f.admissionMs, disaggAdmissionMs: f.disaggAdmissionMs, rows: f.rows, burstShare: f.burstShare, byArchitecture: f.byArchitecture })}`);
  if (!values['dry-run']) writeFileSync(path, `${JSON.stringify(file)}\n`);
}
clearCoefficientsCache();
console.log(`calibrate-replay: ${values['dry-run'] ? 'dry run, nothing written' : `wrote ${fit.size} files under ${outDir}`} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
