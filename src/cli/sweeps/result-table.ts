// Human rendering of a SweepResult for `spica result`: the ranked table (single objective) or the
// Pareto front, then the counts. `--json` / `--out` carry the lossless record.
import type { CandidateRow, SweepResult } from '../../search/sweepResult.js';
import { describeCompact } from '../../results/report/describe.js';

function num(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '-';
  return String(Number(v.toPrecision(5)));
}

/** Ids of the result's view, in its order (ranked list or Pareto front). */
export function viewIds(result: SweepResult): { kind: 'ranked' | 'pareto'; ids: string[] } {
  return 'top_n' in result.views ? { kind: 'ranked', ids: result.views.top_n } : { kind: 'pareto', ids: result.views.pareto_front };
}

export function formatSweepResult(result: SweepResult, maxRows = 10): string {
  const q = result.question;
  const lines = [
    `sweep ${result.sweep_id ?? '(local)'}: ${q.model_name} on ${q.hardware_sku}, budget ${q.gpu_budget} GPUs, goal ${String(q.goal.target ?? '?')}, ${q.policy}/${q.algorithm}, seed ${q.seed}`,
  ];
  const byId = new Map(result.candidates.map((c) => [c.id, c]));
  const { kind, ids } = viewIds(result);
  const rows = ids.map((id) => byId.get(id)).filter((c): c is CandidateRow => c !== undefined);
  const objectiveNames = result.objectives.map((o) => o.name);
  if (rows.length === 0) {
    lines.push('no feasible candidate');
  } else {
    lines.push(kind === 'ranked' ? `top ${Math.min(maxRows, rows.length)} of ${rows.length} ranked:` : `Pareto front (${rows.length}):`);
    const header = ['#', 'ID', 'MODE', 'BACKEND', 'GPUS', ...objectiveNames.map((n) => `${n} (${result.objectives.find((o) => o.name === n)!.direction})`), 'DEPLOYMENT'];
    const body = rows.slice(0, maxRows).map((c, i) => {
      const d = describeCompact(c, q);
      return [String(i + 1), c.id, c.branch, c.config.backend, String(c.used_gpus), ...objectiveNames.map((n) => num(c.objectives?.[n])), `${d.roles.join('; ')}; ${d.router}; ${d.planner}`];
    });
    const table = [header, ...body];
    const widths = header.map((_, col) => Math.max(...table.map((r) => r[col].length)));
    for (const r of table) lines.push(`  ${r.map((cell, col) => (col === r.length - 1 ? cell : cell.padEnd(widths[col]))).join('  ')}`);
    if (rows.length > maxRows) lines.push(`  … ${rows.length - maxRows} more (--json or --out DIR for all)`);
  }
  const c = result.counts;
  lines.push(
    `counts: evaluated ${c.evaluated}, feasible ${c.feasible}, infeasible ${c.infeasible}, unsupported ${c.unsupported}, timed_out ${c.timed_out}, failed ${c.failed}, cache hits ${c.cache_hits}`,
  );
  for (const b of result.branches) lines.push(`branch ${b.deployment_mode}: ${b.trials} trials in ${b.rounds} rounds, stopped: ${b.stop_reason}`);
  for (const w of result.warnings) lines.push(`warning: ${w}`);
  return `${lines.join('\n')}\n`;
}
