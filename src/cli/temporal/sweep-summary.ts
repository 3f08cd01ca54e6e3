// Human-readable rendering of a SweepResult (`spica sweep`, `spica result`, `spica resume` without
// --json): the ranked top-N (or the Pareto front) with key metrics, then counts by status, branch
// summaries and warnings. `--json` / `--out` carry the lossless record.
import { equivalentLabel, listedGroups } from '../../results/rankedView.js';
import type { CandidateRow, SweepResult } from '../../search/sweepResult.js';

function fmt(v: number | null | undefined, digits = 1): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '-';
  return Math.abs(v) >= 1e5 ? v.toExponential(2) : v.toFixed(digits);
}

function parallelLabel(c: CandidateRow): string {
  const pc = c.config.parallel_config;
  const group = (g: { tp: number; pp: number; attention_dp: number; moe_ep: number; replicas: number }) =>
    `tp${g.tp}${g.pp > 1 ? `·pp${g.pp}` : ''}${g.attention_dp > 1 ? `·dp${g.attention_dp}` : ''}${g.moe_ep > 1 ? `·ep${g.moe_ep}` : ''}×${g.replicas}`;
  return 'prefill' in pc ? `P ${group(pc.prefill)} D ${group(pc.decode)}` : group(pc);
}

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => `  ${r.map((cell, i) => (i >= 5 ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  ')}`.trimEnd());
}

/** Ids of the result's view, in its order (ranked list or Pareto front). */
export function viewIds(result: SweepResult): { kind: 'ranked' | 'pareto'; ids: string[] } {
  return 'top_n' in result.views ? { kind: 'ranked', ids: result.views.top_n } : { kind: 'pareto', ids: result.views.pareto_front };
}

export function formatSweepResult(result: SweepResult, maxRows = Infinity): string {
  const q = result.question;
  const objectives = result.objectives.map((o) => o.name);
  const lines = [
    `sweep ${result.sweep_id ?? '(local)'}: ${q.model_name} on ${q.hardware_sku} (budget ${q.gpu_budget} GPUs), goal ${String(q.goal.target)}, ${q.policy}/${q.algorithm}, seed ${q.seed}`,
  ];
  const { kind, ids } = viewIds(result);
  const isPareto = kind === 'pareto';
  if (ids.length === 0) {
    lines.push('no feasible candidate');
  } else {
    lines.push(isPareto ? `Pareto front (${ids.length}), by ${objectives[objectives.length - 1]}:` : `top ${ids.length} by ${objectives[0]}:`);
    // (listed below with identical replays folded, so there may be fewer lines than ids)
    const header = ['#', 'id', 'branch', 'backend', 'parallel', 'gpus', ...objectives, 'ttft_ms', 'tpot_ms'];
    // Identical replays fold into one line; a second line names what tells the listed lines apart.
    const groups = listedGroups(result, ids);
    const shown = groups.slice(0, maxRows);
    const rows = shown.map(({ row: c }, i) => {
      const m = c.metrics ?? {};
      return [
        String(i + 1),
        c.id,
        c.branch,
        c.config.backend,
        parallelLabel(c),
        String(c.used_gpus),
        ...objectives.map((o) => fmt(c.objectives?.[o])),
        fmt(m.mean_ttft_ms),
        fmt(m.mean_tpot_ms),
      ];
    });
    const [head, ...body] = table([header, ...rows]);
    lines.push(head);
    body.forEach((line, i) => {
      lines.push(line);
      const g = shown[i];
      const note = [g.differing.map(([k, v]) => `${k}=${v}`).join('  '), equivalentLabel(g)].filter(Boolean).join('  ');
      if (note) lines.push(`       ${note}`);
    });
    if (groups.length > maxRows) lines.push(`  … ${groups.length - maxRows} more (--json or --out DIR for all)`);
    const hv = result.hypervolume;
    if (hv) lines.push(`hypervolume ${fmt(hv.value, 1)} (reference point ${Object.entries(hv.reference_point).map(([k, v]) => `${k} ${fmt(v, 1)}`).join(', ')})`);
  }
  const n = result.counts;
  lines.push(
    `trials: ${n.evaluated} — ${n.feasible} feasible, ${n.infeasible} infeasible, ${n.unsupported} unsupported, ${n.timed_out} timed out, ${n.failed} failed; ${n.cache_hits} cache hits`,
  );
  for (const b of result.branches) {
    lines.push(`  ${b.deployment_mode} (${b.backends.join(', ')}): ${b.rounds} round(s), ${b.trials} trial(s), stopped: ${b.stop_reason}`);
  }
  for (const w of result.warnings) lines.push(`warning: ${w}`);
  return `${lines.join('\n')}\n`;
}
