// renderReport: one self-contained HTML page for a SweepResult — the question, the answer, counts,
// the ranked table or Pareto front, charts (inline SVG) and why candidates were rejected. No
// network: inline CSS, inline SVG, no fonts, no scripts.
import type { CandidateRow, SweepResult } from '../../search/sweepResult.js';
import { convergenceCharts, knobCharts, paretoChart, throughputPoint } from './charts.js';
import { describeCandidate, describeCompact } from './describe.js';
import { esc } from './escape.js';
import { equivalentLabel, listedGroups, type ListedGroup } from '../rankedView.js';
import { REPORT_CSS } from './style.js';

const TOP_N = 20;

/** 12,345.7 / 0.0123 / 1.23e-7 — deterministic, locale-free. */
export function formatNumber(v: number | null | undefined): string {
  if (v === null || v === undefined) return '—';
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e12)) return v.toExponential(2);
  const digits = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  const [int, frac] = v.toFixed(digits).split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac ? `${grouped}.${frac}` : grouped;
}

function kv(entries: [string, string][]): string {
  return `<dl class="kv">${entries.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join('')}</dl>`;
}

function compact(record: Record<string, unknown>): string {
  return Object.entries(record)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(', ');
}

function questionSection(r: SweepResult): string {
  const q = r.question;
  const goal = q.goal as Record<string, unknown>;
  return `<h2>The question</h2>${kv([
    ['model', esc(q.model_name)],
    ['hardware', esc(q.hardware_sku)],
    ['GPU budget', esc(q.gpu_budget)],
    ['workload', `<span class="mono">${esc(compact(q.workload))}</span>`],
    ['goal', `${esc(String(goal.target ?? ''))} — objectives: ${esc(r.objectives.map((o) => `${o.name} (${o.direction})`).join(', '))}${goal.sla ? ` — SLA <span class="mono">${esc(compact(goal.sla as Record<string, unknown>))}</span>` : ''}`],
    ['policy', `${esc(q.policy)} (${esc(q.algorithm)}), seed ${esc(q.seed)}`],
    ['provenance', `<span class="mono">sweep ${esc(r.sweep_id ?? '(local)')} · config ${esc(r.config_hash)} · simulator ${esc(r.simulator_version)}</span>`],
  ])}`;
}

function describeBlock(row: CandidateRow, r: SweepResult): string {
  const d = describeCandidate(row, r.question);
  return `<strong>${esc(row.id)}</strong> — ${esc(d.headline)}<ul>${d.roles.map((x) => `<li>${esc(x)}</li>`).join('')}<li>${esc(d.router)}</li><li>${esc(d.planner)}</li></ul>`;
}

function answerSection(r: SweepResult, byId: Map<string, CandidateRow>): string {
  let body: string;
  if ('top_n' in r.views) {
    const best = r.views.top_n.length ? byId.get(r.views.top_n[0]) : undefined;
    const obj = r.objectives[0];
    body = best
      ? `<p>Best candidate by <strong>${esc(obj?.name ?? 'score')}</strong> (${esc(obj?.direction ?? '')}): <strong>${esc(formatNumber(best.score))}</strong></p>${describeBlock(best, r)}`
      : '<p><strong>Nothing feasible.</strong> No candidate met the constraints; see the rejection reasons below.</p>';
  } else {
    const front = r.views.pareto_front.map((id) => byId.get(id)).filter((x): x is CandidateRow => x !== undefined);
    body = front.length
      ? `<p>The Pareto front over <strong>${esc(r.objectives.map((o) => o.name).join(' × '))}</strong> has <strong>${front.length}</strong> candidate${front.length === 1 ? '' : 's'}. There is no single winner: pick the trade-off you want and deploy it with <span class="mono">spica deploy result.json --candidate ID</span>.</p>`
      : '<p><strong>Nothing feasible.</strong> The front is empty; see the rejection reasons below.</p>';
    if (front.length) body += `<p>Extremes of the front:</p>${[front[0], front[front.length - 1]].filter((x, i, a) => a.indexOf(x) === i).map((row) => describeBlock(row, r)).join('')}`;
  }
  return `<h2>The answer</h2><div class="answer" id="answer">${body}</div>`;
}

function countsSection(r: SweepResult): string {
  const c = r.counts;
  const cells: [string, number][] = [
    ['evaluated', c.evaluated],
    ['feasible', c.feasible],
    ['infeasible', c.infeasible],
    ['unsupported', c.unsupported],
    ['timed out', c.timed_out],
    ['failed', c.failed],
    ['cache hits', c.cache_hits],
  ];
  const branches = r.branches
    .map((b) => `<tr><td>${esc(b.deployment_mode)}</td><td>${esc(b.backends.join(', '))}</td><td class="num">${b.rounds}</td><td class="num">${b.trials}</td><td>${esc(b.stop_reason)}</td></tr>`)
    .join('');
  return `<h2>Counts</h2><div class="table-wrap"><table id="counts"><thead><tr>${cells.map(([k]) => `<th class="num">${esc(k)}</th>`).join('')}</tr></thead><tbody><tr>${cells.map(([, v]) => `<td class="num">${v}</td>`).join('')}</tr></tbody></table></div>
<h3>Branches</h3><div class="table-wrap"><table id="branches"><thead><tr><th>mode</th><th>backends</th><th class="num">rounds</th><th class="num">trials</th><th>stop reason</th></tr></thead><tbody>${branches}</tbody></table></div>`;
}

function candidateTable(id: string, groups: ListedGroup[], r: SweepResult): string {
  const head = ['#', 'id', 'mode', 'backend', 'deployment', 'GPUs', ...r.objectives.map((o) => `${o.name} (${o.direction})`), 'mean TTFT ms', 'mean TPOT ms', 'mean E2E ms', 'tok/s', 'tok/s/GPU', 'tok/s/user', 'differs from the other lines', 'same replay'];
  const numeric = new Set([0, 5, ...r.objectives.map((_, i) => 6 + i), ...[0, 1, 2, 3, 4, 5].map((i) => 6 + r.objectives.length + i)]);
  const body = groups
    .map((g, i) => {
      const row = g.row;
      const d = describeCompact(row, r.question);
      const m = row.metrics ?? {};
      const tp = throughputPoint(row);
      const cells = [
        String(i + 1),
        `<span class="mono nowrap">${esc(row.id)}</span>`,
        esc(row.config.deployment_mode),
        esc(row.config.backend),
        `${d.roles.map(esc).join('<br>')}<br><span class="muted">${esc(d.router)}; ${esc(d.planner)}</span>`,
        String(row.used_gpus),
        ...r.objectives.map((o) => esc(formatNumber(row.objectives?.[o.name]))),
        esc(formatNumber(m.mean_ttft_ms)),
        esc(formatNumber(m.mean_tpot_ms)),
        esc(formatNumber(m.mean_e2e_latency_ms)),
        esc(formatNumber(m.output_throughput_tok_s)),
        esc(formatNumber(tp?.perGpu)),
        esc(formatNumber(tp?.perUser)),
        `<span class="mono">${g.differing.map(([k, v]) => esc(`${k}=${v}`)).join('<br>')}</span>`,
        esc(equivalentLabel(g)),
      ];
      return `<tr data-id="${esc(row.id)}">${cells.map((c, k) => `<td${numeric.has(k) ? ' class="num"' : k === 4 ? ' class="deploy"' : ''}>${c}</td>`).join('')}</tr>`;
    })
    .join('');
  return `<div class="table-wrap"><table id="${esc(id)}" class="candidates"><thead><tr>${head.map((h, k) => `<th${numeric.has(k) ? ' class="num"' : ''}>${esc(h)}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table></div>`;
}

/** The front's hypervolume and its reference point (Pareto results). */
function hypervolumeNote(r: SweepResult): string {
  const hv = r.hypervolume;
  if (!hv) return '';
  const ref = Object.entries(hv.reference_point).map(([k, v]) => `${k} ${formatNumber(v)}`).join(', ');
  return `<p id="hypervolume">Hypervolume of the front: <strong>${esc(formatNumber(hv.value))}</strong> (reference point: ${esc(ref)}).</p>`;
}

/** Says when identical replays were folded into one line. */
function folded(groups: ListedGroup[], listed: number): string {
  return groups.length < listed ? `<p class="muted">${listed} candidates, ${groups.length} distinct replays: candidates whose replays are identical share a line (a setting that does not bind changes the deployment, not the result).</p>` : '';
}

function rankedSection(r: SweepResult, byId: Map<string, CandidateRow>): string {
  if ('top_n' in r.views) {
    const ids = r.views.top_n.slice(0, TOP_N).filter((id) => byId.has(id));
    const groups = listedGroups(r, ids);
    return `<h2>Top ${ids.length} of ${r.views.top_n.length} ranked candidates</h2>${folded(groups, ids.length)}${groups.length ? candidateTable('top-n', groups, r) : '<p class="muted">No feasible candidate.</p>'}`;
  }
  const ids = r.views.pareto_front.filter((id) => byId.has(id));
  const groups = listedGroups(r, ids);
  return `<h2>Pareto front (${ids.length}), sorted by ${esc(r.objectives[r.objectives.length - 1]?.name ?? '')}</h2>${hypervolumeNote(r)}${folded(groups, ids.length)}${groups.length ? candidateTable('pareto-front', groups, r) : '<p class="muted">Empty front.</p>'}`;
}

function rejectionsSection(r: SweepResult): string {
  const groups = new Map<string, CandidateRow[]>();
  for (const row of r.candidates) {
    if (row.status === 'feasible') continue;
    const key = `${row.status}\u0000${row.reason_category ?? 'unspecified'}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(row);
  }
  if (groups.size === 0) return '<h2>Rejected candidates</h2><p class="muted">Every evaluated candidate was feasible.</p>';
  const rows = [...groups.entries()]
    .sort((a, b) => b[1].length - a[1].length)
    .map(([key, list]) => {
      const [status, category] = key.split('\u0000');
      const examples: CandidateRow[] = [];
      const seen = new Set<string>();
      for (const x of list) {
        const reason = x.reason ?? '';
        if (seen.has(reason)) continue;
        seen.add(reason);
        examples.push(x);
        if (examples.length === 3) break;
      }
      const ex = examples.map((x) => `<div><span class="mono">${esc(x.id)}</span> — ${esc(x.reason ?? '(no reason recorded)')}</div>`).join('');
      return `<tr><td><span class="status-${esc(status)}">${esc(status)}</span></td><td>${esc(category)}</td><td class="num">${list.length}</td><td>${ex}</td></tr>`;
    })
    .join('');
  return `<h2>Rejected candidates</h2><div class="table-wrap"><table id="rejections"><thead><tr><th>status</th><th>reason category</th><th class="num">count</th><th>examples</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function extrasSection(r: SweepResult): string {
  const parts: string[] = [];
  if (r.load_predictor) parts.push(`<h2>Load predictor</h2><pre class="mono">${esc(JSON.stringify(r.load_predictor, null, 2))}</pre>`);
  if (r.warnings.length) parts.push(`<h2>Warnings</h2><ul id="warnings">${r.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul>`);
  return parts.join('');
}

export function renderReport(result: SweepResult): string {
  const byId = new Map(result.candidates.map((c) => [c.id, c]));
  const q = result.question;
  const pareto = paretoChart(result);
  const convergence = convergenceCharts(result);
  const knobs = knobCharts(result);
  const title = `Spica sweep — ${q.model_name} on ${q.hardware_sku} (${q.gpu_budget} GPUs)`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${REPORT_CSS}</style></head>
<body><main>
<h1>${esc(title)}</h1><p class="muted">SweepResult ${esc(result.schema_version)} · ${result.candidates.length} candidates</p>
${questionSection(result)}
${answerSection(result, byId)}
${countsSection(result)}
${rankedSection(result, byId)}
<h2>Throughput trade-off</h2><p class="muted">Every feasible candidate; the front on these two metrics is highlighted.</p><div class="charts">${pareto.svg}</div>
<h2>Convergence</h2><div class="charts">${convergence.join('')}</div>
<h2>Knobs</h2>${knobs.length ? `<p class="muted">Score of each feasible candidate by the value of each searched dimension (box = interquartile range, bar = median).</p><div class="charts">${knobs.join('')}</div>` : '<p class="muted">No dimension was searched.</p>'}
${rejectionsSection(result)}
${extrasSection(result)}
</main></body></html>
`;
}
