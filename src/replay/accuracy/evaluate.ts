// Replays measured e2e rows and summarises the median |relative error| of mean TTFT / TPOT
// (Clarification D definitions, `mean_ttft_ms` / `mean_tpot_ms` of the report) per
// (sku, backend, mode) and overall.
import { loadCoefficients } from '../../hardware/perf/coefficients.js';
import { burstShareAt } from '../../hardware/perf/steadyState.js';
import { loadSystem } from '../../hardware/systems.js';
import { simulate } from '../cluster.js';
import { replayOverheadIn, resolveReplay, type ResolveOptions } from '../resolve.js';
import type { E2eRow } from './rows.js';
import { replaySpecForRow, type RowSpecOptions } from './rowSpec.js';
import { atBurstShare, meanLatencies, windowParts, type WindowParts } from './window.js';

export interface RowResult {
  id: string;
  key: string; // sku/backend/mode
  measuredTtftMs: number;
  measuredTpotMs: number;
  ttftMs: number;
  tpotMs: number;
  /** Signed relative errors (predicted / measured − 1). */
  ttftErr: number;
  tpotErr: number;
  /** 'benchmark' window: the start-up wave's and the rest's means the row's figures weigh. */
  parts?: WindowParts;
}

export interface RowFailure {
  id: string;
  key: string;
  error: string;
}

export interface GroupSummary {
  key: string;
  rows: number;
  ttftMedian: number;
  tpotMedian: number;
  ttftP90: number;
  tpotP90: number;
  /** Median signed error: > 0 means the replay is slower than measured. */
  ttftBias: number;
  tpotBias: number;
}

export interface AccuracyReport {
  groups: GroupSummary[];
  overall: GroupSummary;
  results: RowResult[];
  failures: RowFailure[];
}

export function rowKey(row: E2eRow): string {
  return `${row.sku}/${row.backend}/${row.mode}`;
}

/**
 * How the row's mean TTFT / TPOT are read off the replay:
 * * 'all': over every completed request (Clarification D: the report's mean_ttft_ms / mean_tpot_ms);
 * * 'steady': over the requests issued after the first `concurrency` (without the start-up wave, in
 *   which every slot of the closed loop arrives at t = 0);
 * * 'benchmark' (default for agg rows): the start-up wave and the rest weighted as in the measured
 *   run. The CSV does not record the benchmark's request count, so the share of the run's requests
 *   that arrive in the burst is fitted with the replay corrections (`overhead.replay.burstShare`,
 *   replayFit.ts `fitBurstShares`); without one, the steady-state fit's (`burstShareAt`). So the
 *   replay's own request count, capped for cost, does not decide how much the wave weighs. Measured on
 *   the 977 agg rows with the corrections then fitted for 'all' (2026-11-30), borrowing the
 *   steady-state share: TTFT median |rel err| 25.6 % → 23.2 % (heavy rows, replayed with
 *   2 × concurrency requests: 37.5 → 28.8 %).
 * Disagg rows default to 'all' (the burst share was fitted on agg rows).
 */
export type MeanWindow = 'all' | 'steady' | 'benchmark';

export interface ReplayRowOptions extends RowSpecOptions, ResolveOptions {
  window?: MeanWindow;
}

/** Replays one row; predicted mean TTFT / TPOT and errors against its measurement. */
export function replayRow(row: E2eRow, opts: ReplayRowOptions = {}): RowResult {
  const spec = replaySpecForRow(row, loadSystem(row.sku, { systemsDir: opts.systemsDir }).memCapacityBytes, opts);
  const r = resolveReplay(spec, opts);
  const outcome = simulate(r.deployment, r.plan);
  const done = outcome.recorder.completed;
  const window = opts.window ?? (row.mode === 'agg' ? 'benchmark' : 'all');
  let parts: WindowParts | undefined;
  let ttft: number;
  let tpot: number;
  if (window === 'benchmark') {
    const o = loadCoefficients(row.sku, row.backend, opts.coefficientsDir).file.overhead;
    const rc = replayOverheadIn(opts, o.replay);
    parts = windowParts(done, row.concurrency);
    ({ ttftMs: ttft, tpotMs: tpot } = atBurstShare(parts, rc?.burstShare ?? burstShareAt(row.concurrency, o.burstShare, o.burstRequests)));
  } else ({ ttftMs: ttft, tpotMs: tpot } = meanLatencies(done, window === 'steady' ? row.concurrency : 0));
  if (!(ttft > 0 && tpot > 0)) throw new Error(`replay produced no TTFT/TPOT (completed ${done.length} of ${outcome.issued} requests)`);
  return {
    id: row.id,
    key: rowKey(row),
    measuredTtftMs: row.ttftMs,
    measuredTpotMs: row.tpotMs,
    ttftMs: ttft,
    tpotMs: tpot,
    ttftErr: ttft / row.ttftMs - 1,
    tpotErr: tpot / row.tpotMs - 1,
    ...(parts ? { parts } : {}),
  };
}

function quantileSorted(s: readonly number[], q: number): number {
  if (s.length === 0) return NaN;
  const pos = q * (s.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

function median(xs: readonly number[]): number {
  return quantileSorted([...xs].sort((a, b) => a - b), 0.5);
}

/** Median / p90 of |error| and median signed error of a set of row results. */
export function summarise(key: string, results: readonly RowResult[]): GroupSummary {
  const absT = results.map((r) => Math.abs(r.ttftErr)).sort((a, b) => a - b);
  const absP = results.map((r) => Math.abs(r.tpotErr)).sort((a, b) => a - b);
  return {
    key,
    rows: results.length,
    ttftMedian: quantileSorted(absT, 0.5),
    tpotMedian: quantileSorted(absP, 0.5),
    ttftP90: quantileSorted(absT, 0.9),
    tpotP90: quantileSorted(absP, 0.9),
    ttftBias: median(results.map((r) => r.ttftErr)),
    tpotBias: median(results.map((r) => r.tpotErr)),
  };
}

/** Groups results per (sku, backend, mode) plus per mode overall and everything. */
export function summariseResults(results: readonly RowResult[], failures: RowFailure[] = []): AccuracyReport {
  const by = new Map<string, RowResult[]>();
  for (const r of results) {
    const mode = r.key.split('/')[2];
    for (const k of [r.key, `all/${mode}`]) by.set(k, [...(by.get(k) ?? []), r]);
  }
  const groups = [...by].sort(([a], [b]) => (a.startsWith('all/') === b.startsWith('all/') ? a.localeCompare(b) : a.startsWith('all/') ? 1 : -1)).map(([k, rs]) => summarise(k, rs));
  return { groups, overall: summarise('all', results), results: [...results], failures };
}

export function evaluateReplayAccuracy(rows: readonly E2eRow[], opts: ReplayRowOptions = {}): AccuracyReport {
  const results: RowResult[] = [];
  const failures: RowFailure[] = [];
  for (const row of rows) {
    try {
      results.push(replayRow(row, opts));
    } catch (err) {
      failures.push({ id: row.id, key: rowKey(row), error: (err as Error).message });
    }
  }
  return summariseResults(results, failures);
}

export function formatAccuracyReport(r: AccuracyReport): string {
  const p = (x: number): string => `${(100 * x).toFixed(1).padStart(6)} %`;
  const s = (x: number): string => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} %`.padStart(9);
  const lines = ['sku/backend/mode          rows  TTFT median    TTFT p90  TTFT bias  TPOT median    TPOT p90  TPOT bias'];
  for (const x of [...r.groups, r.overall])
    lines.push(`${x.key.padEnd(24)} ${String(x.rows).padStart(5)}  ${p(x.ttftMedian)}  ${p(x.ttftP90)}  ${s(x.ttftBias)}  ${p(x.tpotMedian)}  ${p(x.tpotP90)}  ${s(x.tpotBias)}`);
  if (r.failures.length > 0) lines.push(`${r.failures.length} rows failed: ${r.failures.slice(0, 3).map((f) => `${f.id}: ${f.error}`).join('; ')}`);
  return lines.join('\n');
}
