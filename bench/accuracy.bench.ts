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

  // Every replayable row is replayed. Rows whose default replay (10 × concurrency requests, ≤ 600)
  // would emit more than MAX_WORK output tokens ("heavy": high concurrency or 8k outputs) issue fewer
  // requests — MAX_WORK / osl, never fewer than 2 × concurrency — so the whole bench stays within a few
  // minutes; the means then weigh the start-up wave more (1 in 2 requests at the floor instead of 1 in 10).
  // The figures are printed for all rows, for the light selection (the rows scripts/calibrate-replay.ts
  // fits on, replayed exactly as before) and for the heavy rows separately. Until the SGLang scheduler
  // reserved KV for running requests (new_token_ratio) and retracted on decode OOM, over-committed SGLang
  // rows (DeepSeek-R1 h200 tp8, 8192/1024 at c = 64) livelocked, so the heavy rows were left out.
  const MAX_WORK = 5e5;
  const isHeavy = (r: (typeof rows)[number]): boolean => requestCount(r.concurrency) * r.osl > MAX_WORK;
  const heavy = rows.filter(isHeavy);
  const light = rows.filter((r) => !isHeavy(r));
  console.log(`replaying ${rows.length} rows: ${light.length} light, ${heavy.length} heavy (> ${MAX_WORK} emitted tokens by default: requests capped at max(2 × concurrency, ${MAX_WORK} / osl))`);
  const t0 = performance.now();
  const lightReport = evaluateReplayAccuracy(light);
  const tLight = (performance.now() - t0) / 1000;
  const heavyReport = evaluateReplayAccuracy(heavy, { maxWork: MAX_WORK });
  const wall = (performance.now() - t0) / 1000;
  const report = summariseResults([...lightReport.results, ...heavyReport.results], [...lightReport.failures, ...heavyReport.failures]);
  console.log(`\nreplay (closed loop, mean over all requests), ALL ${report.results.length} rows in ${wall.toFixed(1)} s (light ${tLight.toFixed(1)} s, heavy ${(wall - tLight).toFixed(1)} s)\n${formatAccuracyReport(report)}`);
  console.log(`\nlight selection only (the ${light.length} rows of the earlier bench and of the replay calibration):\n${formatAccuracyReport(lightReport)}`);
  console.log(`\nheavy rows only (requests capped):\n${formatAccuracyReport(heavyReport)}`);
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
