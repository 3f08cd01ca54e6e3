// `node --import tsx scripts/calibrate-replay.ts`: fits the replay's corrections of the perf model
// (`overhead.replay` in systems/coefficients/<sku>/<backend>.json: pass-time scale and admission
// delays) against measured TTFT/TPOT of e2e/silicon_dev.csv (agg + disagg), replaying every row
// whose replay is cheap enough (--max-work tokens emitted) once without corrections.
// Reports in-sample and 2-fold held-out (row-id hash) errors of the first-order fit; the bench
// (`npm run bench accuracy`) replays again with the written corrections for the true figures.
// Run after `npm run calibrate` (which rewrites the files without this block).
// Admission delays: by default only disaggregated serving's (--admission all|disagg|none). Verified by
// replaying (bench), the first-order model TTFT ≈ s·TTFT₀ + d does not hold for agg fixed-length
// closed loops — the delay re-synchronises the loop so requests queue behind each other's prefills
// (one c=4 row: +232 ms TTFT for d = 72 ms) and fitted agg delays made the verified agg TTFT error
// worse (57.5 % vs 35.0 % median); the disagg delay verified well (disagg TTFT 57.1 % → 20.7 %).
// Options: --out DIR  --max-work N (default 5e5: ~600 rows, about a minute on a shared machine)
//          --admission all|disagg|none  --dry-run
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { clearCoefficientsCache, coefficientsPath, coefficientsSchema, defaultCoefficientsDir } from '../src/hardware/perf/coefficients.js';
import { perfdbDir, readRooflineRef } from '../src/hardware/perf/perfdbTables.js';
import { formatAccuracyReport, replayRow, summariseResults, type RowResult } from '../src/replay/accuracy/evaluate.js';
import { fitReplayOverheads, predictRaw, toReplayOverhead, type AdmissionFit, type RawReplay, type ReplayFit } from '../src/replay/accuracy/replayFit.js';
import { requestCount } from '../src/replay/accuracy/rowSpec.js';
import { loadE2eRows } from '../src/replay/accuracy/rows.js';
import { foldOf } from '../src/replay/accuracy/subset.js';

const { values } = parseArgs({ options: { out: { type: 'string' }, 'max-work': { type: 'string' }, admission: { type: 'string' }, 'dry-run': { type: 'boolean' } } });
const admission = (values.admission ?? 'disagg') as AdmissionFit;
if (!['all', 'disagg', 'none'].includes(admission)) {
  console.error(`calibrate-replay: --admission must be all, disagg or none (got '${admission}')`);
  process.exit(2);
}
const out = values.out ?? defaultCoefficientsDir();
const maxWork = Number(values['max-work'] ?? 5e5);
const dir = perfdbDir();
const t0 = Date.now();

const { rows } = loadE2eRows(dir, (sku) => Boolean(readRooflineRef(dir, sku).flops.fp4));
const usable = rows.filter((r) => requestCount(r.concurrency) * r.osl <= maxWork);
const raw: RawReplay[] = [];
let failed = 0;
for (const r of usable) {
  try {
    const x = replayRow(r, { coefficientsDir: out, replayOverhead: null });
    raw.push({ id: r.id, sku: r.sku, backend: r.backend, mode: r.mode, ttft0: x.ttftMs, tpot0: x.tpotMs, ttftMs: r.ttftMs, tpotMs: r.tpotMs });
  } catch (err) {
    failed++;
    if (failed <= 5) console.warn(`  ${r.id}: ${(err as Error).message}`);
  }
}
console.log(`replayed ${raw.length} of ${rows.length} rows (${rows.length - usable.length} above --max-work ${maxWork}, ${failed} failed) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

const asResults = (rs: readonly RawReplay[], fitOf: (r: RawReplay) => Pick<ReplayFit, 'passScale' | 'admissionMs' | 'disaggAdmissionMs'> | null): RowResult[] =>
  rs.map((r) => {
    const p = fitOf(r) ? predictRaw(r, fitOf(r)!) : { ttftMs: r.ttft0, tpotMs: r.tpot0 };
    return { id: r.id, key: `${r.sku}/${r.backend}/${r.mode}`, measuredTtftMs: r.ttftMs, measuredTpotMs: r.tpotMs, ttftMs: p.ttftMs, tpotMs: p.tpotMs, ttftErr: p.ttftMs / r.ttftMs - 1, tpotErr: p.tpotMs / r.tpotMs - 1 };
  });
const key = (r: RawReplay): string => `${r.sku}/${r.backend}`;

console.log(`\nwithout replay corrections:\n${formatAccuracyReport(summariseResults(asResults(raw, () => null)))}`);
const fit = fitReplayOverheads(raw, 12, admission);
const inSample = summariseResults(asResults(raw, (r) => fit.get(key(r)) ?? null));
console.log(`\nin-sample (fitted on all rows, first-order):\n${formatAccuracyReport(inSample)}`);
const folds = [0, 1].map((k) => fitReplayOverheads(raw.filter((r) => foldOf(r.id) === k), 12, admission));
const heldOut = summariseResults(asResults(raw, (r) => folds[1 - foldOf(r.id)].get(key(r)) ?? null));
console.log(`\nheld out (2-fold by id hash: each row predicted by the fit on the other fold):\n${formatAccuracyReport(heldOut)}`);

const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;
for (const [k, f] of [...fit].sort(([a], [b]) => a.localeCompare(b))) {
  const [sku, backend] = k.split('/');
  const path = coefficientsPath(out, sku, backend);
  // Edit the JSON as read (validated first) so fields this script does not know survive.
  const file = JSON.parse(readFileSync(path, 'utf8')) as { overhead: { replay?: unknown } };
  coefficientsSchema.parse(file);
  const mine = (g: string): string => {
    const a = inSample.groups.find((x) => x.key === `${k}/${g}`);
    const h = heldOut.groups.find((x) => x.key === `${k}/${g}`);
    return a && h ? `${g} TTFT ${pct(a.ttftMedian)} (held-out ${pct(h.ttftMedian)}), TPOT ${pct(a.tpotMedian)} (held-out ${pct(h.tpotMedian)})` : `${g}: no rows`;
  };
  const source = `fitted:replay of e2e/silicon_dev.csv rows of ${k} (${f.rows} rows; pass scale, admission delays fitted: ${admission}, disagg delay pooled over SKUs) by scripts/calibrate-replay.ts at ${new Date().toISOString()}; first-order median |rel err| ${mine('agg')}; ${mine('disagg')}`;
  file.overhead.replay = toReplayOverhead(f, source);
  console.log(`${k}: ${JSON.stringify({ passScale: f.passScale, admissionMs: f.admissionMs, disaggAdmissionMs: f.disaggAdmissionMs, rows: f.rows })}`);
  if (!values['dry-run']) writeFileSync(path, `${JSON.stringify(file)}\n`);
}
clearCoefficientsCache();
console.log(`calibrate-replay: ${values['dry-run'] ? 'dry run, nothing written' : `wrote ${fit.size} files under ${out}`} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
