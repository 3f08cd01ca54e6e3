// Replays measured e2e rows through the user path — each row's config (rowConfig.ts) loaded by the
// normal config loader, materialised and replayed exactly as `spica replay` does (replay/from-config.ts)
// — and reads the report's `mean_ttft_ms` / `mean_tpot_ms`, the fields a sweep ranks on (Clarification
// D definitions, over every completed request). Summarises the median |relative error| per
// (sku, backend, mode) and overall.
import { configFromObject } from '../config/load.js';
import { loadSystem } from '../hardware/systems.js';
import { replaySpecFromConfig } from '../replay/from-config.js';
import { runReplay } from '../replay/resolve.js';
import type { E2eRow } from './rows.js';
import { rowConfig } from './rowConfig.js';

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

export function rowKey(row: Pick<E2eRow, 'sku' | 'backend' | 'mode'>): string {
  return `${row.sku}/${row.backend}/${row.mode}`;
}

export interface ReplayRowOptions {
  systemsDir?: string;
  /** Coefficient files to replay with (as `spica replay --coefficients-dir`); default the repository's. */
  coefficientsDir?: string;
}

/** Replays one row as a user would (`spica replay` on its config); predicted means and errors. */
export function replayRow(row: E2eRow, opts: ReplayRowOptions = {}): RowResult {
  const memBytes = loadSystem(row.sku, { systemsDir: opts.systemsDir }).memCapacityBytes;
  const config = configFromObject(rowConfig(row, memBytes), { sourceName: row.id, systemsDir: opts.systemsDir });
  const spec = replaySpecFromConfig(config, { systemsDir: opts.systemsDir, source: row.id });
  const m = runReplay(spec, opts).metrics;
  const ttft = m.mean_ttft_ms;
  const tpot = m.mean_tpot_ms;
  if (!(ttft > 0 && tpot > 0)) throw new Error(`replay produced no TTFT/TPOT (completed ${m.completed_requests} of ${m.issued_requests} requests)`);
  return {
    id: row.id,
    key: rowKey(row),
    measuredTtftMs: row.ttftMs,
    measuredTpotMs: row.tpotMs,
    ttftMs: ttft,
    tpotMs: tpot,
    ttftErr: ttft / row.ttftMs - 1,
    tpotErr: tpot / row.tpotMs - 1,
  };
}

function quantileSorted(s: readonly number[], q: number): number {
  if (s.length === 0) return NaN;
  const pos = q * (s.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

/** Median (the mean of the middle two for an even count). */
export function median(xs: readonly number[]): number {
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
