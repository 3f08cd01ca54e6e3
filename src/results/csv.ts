// candidates.csv: one row per candidate (RFC 4180: CRLF line ends, fields quoted when they hold a
// comma, quote, CR or LF; quotes doubled). Nested records are JSON cells so nothing is lost.
import type { CandidateRow, SweepResult } from '../search/sweepResult.js';

/** The metrics every row gets a column for, in this order (absent ⇒ empty cell). */
export const CSV_METRIC_COLUMNS = [
  'mean_ttft_ms',
  'p90_ttft_ms',
  'mean_tpot_ms',
  'p90_tpot_ms',
  'mean_e2e_latency_ms',
  'p90_e2e_latency_ms',
  'output_throughput_tok_s',
  'mean_output_token_throughput_per_user',
  'goodput_output_throughput_tok_s',
  'avg_gpu',
  'gpu_hours',
] as const;

type Cell = string | number | boolean | null | undefined;

export function csvField(value: Cell): string {
  if (value === null || value === undefined) return '';
  const s = typeof value === 'string' ? value : String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvRecord(values: readonly Cell[]): string {
  return values.map(csvField).join(',');
}

/** Column names: fixed fields, one per objective, the key metrics, then JSON cells. */
export function csvHeader(result: Pick<SweepResult, 'objectives'>): string[] {
  return [
    'id',
    'branch',
    'round',
    'status',
    'reason_category',
    'reason',
    'deployment_mode',
    'backend',
    'used_gpus',
    'concurrency',
    'cache_hit',
    'score',
    ...result.objectives.map((o) => `objective.${o.name}`),
    ...CSV_METRIC_COLUMNS,
    'config',
    'parallel_config',
    'adapters',
    'point',
    'spica_projection',
  ];
}

function rowCells(row: CandidateRow, objectives: SweepResult['objectives']): Cell[] {
  return [
    row.id,
    row.branch,
    row.round,
    row.status,
    row.reason_category,
    row.reason,
    row.config.deployment_mode,
    row.config.backend,
    row.used_gpus,
    row.concurrency,
    row.cache_hit,
    row.score,
    ...objectives.map((o) => row.objectives?.[o.name]),
    ...CSV_METRIC_COLUMNS.map((k) => row.metrics?.[k]),
    JSON.stringify(row.config),
    JSON.stringify(row.config.parallel_config),
    JSON.stringify(row.config.adapters),
    JSON.stringify(row.point),
    row.spica_projection === null ? null : JSON.stringify(row.spica_projection),
  ];
}

export function candidatesCsv(result: SweepResult): string {
  const lines = [csvRecord(csvHeader(result)), ...result.candidates.map((r) => csvRecord(rowCells(r, result.objectives)))];
  return `${lines.join('\r\n')}\r\n`;
}
