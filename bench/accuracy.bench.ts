// Replay accuracy against every replayable row of e2e/silicon_dev.csv (agg and disagg): median
// |rel err| of mean TTFT / TPOT per (sku, backend, mode), overall, and per 2-fold id-hash split (the
// folds the replay calibration holds out). Baseline, measured in the same run: the steady-state
// estimate (src/hardware/perf/steadyState.ts) on the same agg rows; ratio = replay / estimate error.
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { evaluateE2e, formatE2eReport } from '../src/hardware/perf/e2eAccuracy.js';
import { loadE2eCases } from '../src/hardware/perf/e2eCases.js';
import { perfdbDir, readRooflineRef } from '../src/hardware/perf/perfdbTables.js';
import { evaluateReplayAccuracy, formatAccuracyReport, summariseResults } from '../src/replay/accuracy/evaluate.js';
import { requestCount } from '../src/replay/accuracy/rowSpec.js';
import { loadE2eRows } from '../src/replay/accuracy/rows.js';
import { foldOf } from '../src/replay/accuracy/subset.js';

export async function run(): Promise<void> {
  const dir = perfdbDir();
  if (!existsSync(dir)) {
    console.log(`perf DB not found at ${dir}: skipped`);
    return;
  }
  const hasFp4 = (sku: string): boolean => Boolean(readRooflineRef(dir, sku).flops.fp4);
  const { rows, skipped } = loadE2eRows(dir, hasFp4);
  console.log(`${rows.length} replayable rows (${rows.filter((r) => r.mode === 'agg').length} agg, ${rows.filter((r) => r.mode === 'disagg').length} disagg); skipped: ${[...skipped].map(([k, v]) => `${v} × ${k}`).join('; ')}`);

  // Every replayable row is replayed, exactly as scripts/calibrate-replay.ts replays it for the fit.
  // Rows whose default replay (10 × concurrency requests, ≤ 600) would emit more than MAX_WORK output
  // tokens ("heavy": high concurrency or 8k outputs) issue fewer requests — MAX_WORK / osl, never fewer
  // than 2 × concurrency — so the whole bench stays near a minute. Agg means are read in the 'benchmark'
  // window (evaluate.ts: start-up wave and the rest weighted by the fitted burst share), so the capped
  // request count does not tilt them towards the wave. The figures are printed for all rows, and for the
  // light and heavy rows separately.
  const MAX_WORK = 5e5;
  const heavyIds = new Set(rows.filter((r) => requestCount(r.concurrency) * r.osl > MAX_WORK).map((r) => r.id));
  const isHeavy = (r: { id: string }): boolean => heavyIds.has(r.id);
  console.log(`replaying ${rows.length} rows: ${rows.length - heavyIds.size} light, ${heavyIds.size} heavy (> ${MAX_WORK} emitted tokens by default: requests capped at max(2 × concurrency, ${MAX_WORK} / osl))`);
  const t0 = performance.now();
  const report = evaluateReplayAccuracy(rows, { maxWork: MAX_WORK });
  const wall = (performance.now() - t0) / 1000;
  console.log(`\nreplay (closed loop; agg: benchmark window), ALL ${report.results.length} rows in ${wall.toFixed(1)} s\n${formatAccuracyReport(report)}`);
  console.log(`\nlight rows only:\n${formatAccuracyReport(summariseResults(report.results.filter((r) => !isHeavy(r))))}`);
  console.log(`\nheavy rows only (requests capped):\n${formatAccuracyReport(summariseResults(report.results.filter(isHeavy)))}`);
  for (const fold of [0, 1]) {
    const part = summariseResults(report.results.filter((r) => foldOf(r.id) === fold));
    console.log(`\nfold ${fold} (id hash), all rows:\n${formatAccuracyReport(part)}`);
  }

  // Baseline: the steady-state estimate on the same agg rows.
  const replayed = new Set(report.results.filter((r) => r.key.endsWith('/agg')).map((r) => r.id));
  const cases = loadE2eCases(dir, hasFp4).cases.filter((c) => replayed.has(c.id));
  const t1 = performance.now();
  const est = evaluateE2e(cases);
  console.log(`\nbaseline: steady-state estimate on the same ${est.overall.rows} agg rows (${((performance.now() - t1) / 1000).toFixed(1)} s)\n${formatE2eReport(est)}`);
  const agg = report.groups.find((g) => g.key === 'all/agg');
  if (agg) {
    console.log(
      `\nratio replay / estimate (median |rel err|, agg rows): TTFT ${(agg.ttftMedian / est.overall.ttftMedian).toFixed(2)}× ` +
        `(${(100 * agg.ttftMedian).toFixed(1)} % vs ${(100 * est.overall.ttftMedian).toFixed(1)} %), TPOT ${(agg.tpotMedian / est.overall.tpotMedian).toFixed(2)}× ` +
        `(${(100 * agg.tpotMedian).toFixed(1)} % vs ${(100 * est.overall.tpotMedian).toFixed(1)} %)`,
    );
  }
}
