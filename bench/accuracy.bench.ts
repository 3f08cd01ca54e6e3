// Replay accuracy against every replayable row of e2e/silicon_dev.csv (agg and disagg), all through
// the user path (src/calibration/evaluate.ts: each row's config replayed as `spica replay` does, the
// report's mean_ttft_ms / mean_tpot_ms): median / p90 |rel err| and median signed error of mean TTFT /
// TPOT per (sku, backend, mode) and overall,
// * in-sample: with the committed coefficient files;
// * 2-fold held out (row-id hash): the corrections fitted on one fold's raw replays (uncorrected and
//   with the prefill doubled; first order, src/calibration/fit.ts), refined as calibrate-replay refines
//   them (BENCH_ACCURACY_REFINE rounds, default 2 as `npm run calibrate`: the fold's rows replayed with its fit, mapped back to
//   raw terms, refitted — on that fold's rows only), each row replayed with the other fold's fit.
// Baseline, measured in the same run: the steady-state estimate (src/hardware/perf/steadyState.ts) on
// the same agg rows; ratio = replay / estimate error.
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { coefficientsWith, removeCoefficients } from '../src/calibration/coefficientsDir.js';
import { evaluateReplayAccuracy, formatAccuracyReport, type AccuracyReport, type GroupSummary, type RowResult } from '../src/calibration/evaluate.js';
import { fitKey, fitReplayOverheads, PREFILL_DOUBLED, toReplayOverhead, unapplyFit, type RawReplay, type ReplayFit } from '../src/calibration/fit.js';
import { loadE2eRows, type E2eRow } from '../src/calibration/rows.js';
import { foldOf, idHash, replayWork } from '../src/calibration/subset.js';
import { main } from '../src/cli/main.js';
import { defaultCoefficientsDir } from '../src/hardware/perf/coefficients.js';
import { evaluateE2e, formatE2eReport } from '../src/hardware/perf/e2eAccuracy.js';
import { loadE2eCases } from '../src/hardware/perf/e2eCases.js';
import { perfdbDir, readRooflineRef } from '../src/hardware/perf/perfdbTables.js';
import { architectureClassOf } from '../src/model/architecture-class.js';
import { summariseResults } from '../src/calibration/evaluate.js';

/** Replays `rows` with coefficient files whose replay block is `replayOf(sku/backend)` (undefined: none). */
function replayWith(rows: readonly E2eRow[], replayOf: Parameters<typeof coefficientsWith>[1]): AccuracyReport {
  const dir = coefficientsWith(defaultCoefficientsDir(), replayOf);
  try {
    return evaluateReplayAccuracy(rows, { coefficientsDir: dir });
  } finally {
    removeCoefficients(dir);
  }
}

function targets(label: string, g: GroupSummary | undefined, ttft: number, tpot: number): string {
  if (!g) return `${label}: no rows`;
  const ok = g.ttftMedian <= ttft && g.tpotMedian <= tpot;
  return `${label}: TTFT ${(100 * g.ttftMedian).toFixed(1)} % (≤ ${100 * ttft} %), TPOT ${(100 * g.tpotMedian).toFixed(1)} % (≤ ${100 * tpot} %), TTFT bias ${(100 * g.ttftBias).toFixed(1)} % (±5 %): ${ok && Math.abs(g.ttftBias) <= 0.05 ? 'met' : 'MISSED'}`;
}

export async function run(): Promise<void> {
  const dir = perfdbDir();
  if (!existsSync(dir)) {
    console.log(`perf DB not found at ${dir}: skipped`);
    return;
  }
  const hasFp4 = (sku: string): boolean => Boolean(readRooflineRef(dir, sku).flops.fp4);
  const { rows, skipped } = loadE2eRows(dir, hasFp4);
  console.log(`${rows.length} replayable rows (${rows.filter((r) => r.mode === 'agg').length} agg, ${rows.filter((r) => r.mode === 'disagg').length} disagg); skipped: ${[...skipped].map(([k, v]) => `${v} × ${k}`).join('; ')}`);

  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const report = evaluateReplayAccuracy(rows);
  const cpu = process.cpuUsage(c0);
  console.log(`\nIN-SAMPLE (committed coefficients), ${report.results.length} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU\n${formatAccuracyReport(report)}`);

  // 2-fold held out: raw replays → per-fold fits → each fold replayed with the other fold's fit.
  const t1 = performance.now();
  const raw = replayWith(rows, () => undefined);
  const doubled = new Map(replayWith(rows, () => PREFILL_DOUBLED).results.map((x) => [x.id, x]));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const asRaw = (x: RowResult): RawReplay => {
    const r = byId.get(x.id)!;
    const y = doubled.get(x.id);
    return { id: x.id, sku: r.sku, backend: r.backend, mode: r.mode, arch: architectureClassOf(r.model), ttft0: x.ttftMs, tpot0: x.tpotMs, ...(y ? { ttft2: y.ttftMs, tpot2: y.tpotMs } : {}), ttftMs: r.ttftMs, tpotMs: r.tpotMs };
  };
  const withFits = (fits: Map<string, ReplayFit>) => (key: string) => {
    const f = fits.get(key);
    return f ? toReplayOverhead(f, 'bench accuracy: fold fit') : undefined;
  };
  const rounds = Number(process.env.BENCH_ACCURACY_REFINE ?? 2);
  const fits = [0, 1].map((k) => {
    let fold = raw.results.filter((x) => foldOf(x.id) === k).map(asRaw);
    let fit = fitReplayOverheads(fold);
    for (let i = 0; i < rounds; i++) {
      // The fold's own rows replayed with its fit, mapped back to raw terms and refitted (first order
      // misses how the corrections change the closed loop).
      const again = new Map(replayWith(rows.filter((r) => foldOf(r.id) === k), withFits(fit)).results.map((x) => [x.id, x]));
      const f0 = fit;
      fold = fold.map((x) => {
        const y = again.get(x.id);
        return y ? unapplyFit(x, y, f0.get(fitKey(x))!) : x;
      });
      fit = fitReplayOverheads(fold);
    }
    return fit;
  });
  const held: RowResult[] = [];
  for (const k of [0, 1]) held.push(...replayWith(rows.filter((r) => foldOf(r.id) === k), withFits(fits[1 - k])).results);
  const heldOut = summariseResults(held);
  console.log(`\n2-FOLD HELD OUT (each row replayed with the corrections fitted on the other fold, ${rounds} refinement round${rounds === 1 ? '' : 's'}), ${held.length} rows in ${((performance.now() - t1) / 1000).toFixed(1)} s\n${formatAccuracyReport(heldOut)}`);

  console.log('\ntargets (issue 14):');
  for (const [name, r] of [['in-sample', report], ['held out', heldOut]] as const) {
    console.log(`  ${targets(`${name} agg`, r.groups.find((g) => g.key === 'all/agg'), 0.2, 0.1)}`);
    console.log(`  ${targets(`${name} disagg`, r.groups.find((g) => g.key === 'all/disagg'), 0.3, 0.15)}`);
    const bad = r.groups.filter((g) => !g.key.startsWith('all') && g.key.endsWith('/agg') && (g.ttftMedian > 0.3 || g.tpotMedian > 0.15)).map((g) => g.key);
    console.log(`  ${name}: (sku, backend) agg groups worse than 30 % TTFT / 15 % TPOT: ${bad.length === 0 ? 'none' : bad.join(', ')}`);
  }

  // `spica estimate` (issue 14 item 7): its ttft_ms / tpot_ms are the replay of the closed-loop config
  // (replay/closed-loop-config.ts), which is the agg rows' config here; shown on a sample through the
  // CLI itself, so its in-sample and held-out figures are the agg rows' above.
  const sample = report.results
    .filter((r) => r.key.endsWith('/agg') && replayWork(byId.get(r.id)!) <= 200_000)
    .sort((a, b) => idHash(a.id) - idHash(b.id))
    .slice(0, 24);
  let same = 0;
  for (const r of sample) {
    const row = byId.get(r.id)!;
    if (row.mode !== 'agg') continue;
    const g = row.group;
    let out = '';
    const args = ['estimate', '--model', row.model.id, '--sku', row.sku, '--backend', row.backend, '--quant', row.quant, '--tp', String(g.tp), '--pp', String(g.pp), '--attention-dp', String(g.attention_dp), '--moe-tp', String(g.moe_tp), '--moe-ep', String(g.moe_ep), '--isl', String(row.isl), '--osl', String(row.osl), '--batch', String(row.concurrency), '--json'];
    const code = await main(args, { stdout: (t) => (out += t), stderr: () => {}, isTty: false });
    const e = code === 0 ? (JSON.parse(out) as Record<string, number | string>) : {};
    if (e.latency_source === 'replay' && e.ttft_ms === r.ttftMs && e.tpot_ms === r.tpotMs) same++;
    else console.log(`  estimate differs on ${r.id}: exit ${code}, ${JSON.stringify({ ttft: e.ttft_ms, tpot: e.tpot_ms, src: e.latency_source })} vs replay ${r.ttftMs} / ${r.tpotMs}`);
  }
  const estIn = report.groups.find((g) => g.key === 'all/agg');
  const estHeld = heldOut.groups.find((g) => g.key === 'all/agg');
  console.log(`
spica estimate: ttft_ms / tpot_ms identical to the user-path replay on ${same} of ${sample.length} sampled agg rows (through the CLI)`);
  if (estIn && estHeld)
    console.log(
      `  estimate, agg rows: in-sample TTFT ${(100 * estIn.ttftMedian).toFixed(1)} % / TPOT ${(100 * estIn.tpotMedian).toFixed(1)} %; ` +
        `2-fold held out TTFT ${(100 * estHeld.ttftMedian).toFixed(1)} % / TPOT ${(100 * estHeld.tpotMedian).toFixed(1)} % (target ≤ 20 % / ≤ 10 %: ${estHeld.ttftMedian <= 0.2 && estHeld.tpotMedian <= 0.1 ? 'met' : 'MISSED'})`,
    );

  // Baseline: the steady-state formula (estimate's steady_state_* figures) on the same agg rows.
  const replayed = new Set(report.results.filter((r) => r.key.endsWith('/agg')).map((r) => r.id));
  const cases = loadE2eCases(dir, hasFp4).cases.filter((c) => replayed.has(c.id));
  const t2 = performance.now();
  const est = evaluateE2e(cases);
  console.log(`\nbaseline: steady-state formula (spica estimate's steady_state_*, in-sample) on the same ${est.overall.rows} agg rows (${((performance.now() - t2) / 1000).toFixed(1)} s)\n${formatE2eReport(est)}`);
  const agg = report.groups.find((g) => g.key === 'all/agg');
  if (agg) {
    console.log(
      `\nratio replay / steady-state formula (median |rel err|, agg rows, in-sample): TTFT ${(agg.ttftMedian / est.overall.ttftMedian).toFixed(2)}× ` +
        `(${(100 * agg.ttftMedian).toFixed(1)} % vs ${(100 * est.overall.ttftMedian).toFixed(1)} %), TPOT ${(agg.tpotMedian / est.overall.tpotMedian).toFixed(2)}× ` +
        `(${(100 * agg.tpotMedian).toFixed(1)} % vs ${(100 * est.overall.tpotMedian).toFixed(1)} %)`,
    );
  }
}
