// The report's charts, built from a SweepResult: the throughput Pareto chart (drawn for every
// sweep), convergence per branch, and score-by-knob strips per searched dimension.
import { paretoFrontIndices } from '../../search/pareto.js';
import type { CandidateRow, SweepResult } from '../../search/sweepResult.js';
import { idFragment } from './escape.js';
import { formatTick, wantsLog } from './scale.js';
import { renderChart, type ChartPoint } from './svgChart.js';

/** tokens/s/GPU (y) and tokens/s/user (x) of a feasible candidate with metrics, else null. */
export function throughputPoint(row: CandidateRow): { perGpu: number; perUser: number } | null {
  if (row.status !== 'feasible' || !row.metrics) return null;
  const m = row.metrics;
  const tput = m.output_throughput_tok_s ?? 0;
  const avgGpu = m.avg_gpu ?? 0;
  return { perGpu: avgGpu > 0 ? tput / avgGpu : 0, perUser: m.mean_output_token_throughput_per_user ?? 0 };
}

export function paretoChart(result: SweepResult): { svg: string; frontIds: string[] } {
  const rows = result.candidates.map((r) => ({ r, p: throughputPoint(r) })).filter((x): x is { r: CandidateRow; p: { perGpu: number; perUser: number } } => x.p !== null);
  // The front on these two metrics (both maximized), whatever the sweep's own objectives were.
  const frontIdx = paretoFrontIndices(rows.map(({ p }) => [p.perUser, p.perGpu]), ['max', 'max']);
  const onFront = new Set(frontIdx);
  const points: ChartPoint[] = rows.map(({ r, p }, i) => ({
    x: p.perUser,
    y: p.perGpu,
    id: r.id,
    className: onFront.has(i) ? 'pt front' : 'pt',
    title: `${r.id} (${r.config.deployment_mode}, ${r.config.backend}, ${r.used_gpus} GPUs): ${formatTick(p.perGpu)} tok/s/GPU at ${formatTick(p.perUser)} tok/s/user${onFront.has(i) ? ' — on the front' : ''}`,
  }));
  // Front drawn left-to-right (ascending tok/s/user) as a staircase.
  const front = frontIdx.map((i) => ({ x: rows[i].p.perUser, y: rows[i].p.perGpu })).sort((a, b) => a.x - b.x);
  const xs = points.map((p) => p.x as number);
  const ys = points.map((p) => p.y);
  const svg = renderChart({
    id: 'chart-pareto',
    title: `Throughput per GPU vs per user — ${points.length} feasible candidates, ${front.length} on the front`,
    xLabel: 'output tokens/s per user',
    yLabel: 'output tokens/s per GPU',
    points,
    lines: [{ points: front, className: 'front-line', step: 'before' }],
    xLog: wantsLog(xs),
    yLog: wantsLog(ys),
    emptyText: 'no feasible candidates',
    width: 960,
    height: 440,
    wide: true,
  });
  return { svg, frontIds: frontIdx.map((i) => rows[i].r.id) };
}

export function convergenceCharts(result: SweepResult): string[] {
  const first = result.objectives[0];
  const sign = first?.direction === 'min' ? -1 : 1;
  return result.branches.map((b) => {
    const points: ChartPoint[] = [];
    b.best_so_far.forEach((v, i) => {
      if (v === null) return;
      const raw = sign * v;
      points.push({ x: i + 1, y: raw, id: `${b.deployment_mode}-trial-${i + 1}`, title: `${b.deployment_mode} trial ${i + 1}: best ${first?.name ?? 'score'} so far ${formatTick(raw)}` });
    });
    return renderChart({
      id: `chart-convergence-${idFragment(b.deployment_mode)}`,
      title: `Convergence — ${b.deployment_mode} (${b.trials} trials, ${b.rounds} rounds, stopped: ${b.stop_reason})`,
      xLabel: 'trial',
      yLabel: `best ${first?.name ?? 'score'}${first?.direction === 'min' ? ' (lower is better)' : ''}`,
      points,
      lines: [{ points: points.map((p) => ({ x: p.x as number, y: p.y })), className: 'best-line', step: 'after' }],
      yLog: wantsLog(points.map((p) => p.y), 100),
      emptyText: 'no feasible trial in this branch',
      height: 260,
    });
  });
}

/** Searched dimensions: point keys that took two or more values across the sweep. */
export function searchedDimensions(result: SweepResult): string[] {
  const values = new Map<string, Set<string>>();
  for (const r of result.candidates)
    for (const [k, v] of Object.entries(r.point)) {
      if (!values.has(k)) values.set(k, new Set());
      values.get(k)!.add(JSON.stringify(v));
    }
  return [...values.entries()].filter(([, s]) => s.size >= 2).map(([k]) => k);
}

/** Short display name: `adapter::dynamo.router::router_mode` → `router_mode (dynamo.router)`. */
export function knobLabel(name: string): string {
  const m = /^adapter::([^:]+)::(.+)$/.exec(name);
  return m ? `${m[2]} (${m[1]})` : name;
}

export function knobChartId(name: string): string {
  return `chart-knob-${idFragment(name)}`;
}

export function knobCharts(result: SweepResult): string[] {
  const first = result.objectives[0];
  return searchedDimensions(result).map((name) => {
    const rows = result.candidates.filter((r) => r.status === 'feasible' && r.score !== null && name in r.point);
    const raw = rows.map((r) => r.point[name]);
    const distinct = [...new Set(result.candidates.filter((r) => name in r.point).map((r) => r.point[name]))];
    const numeric = distinct.every((v) => typeof v === 'number');
    // Few distinct values read best as strips; a continuous range as a scatter.
    const categorical = !numeric || distinct.length <= 12;
    const cats = categorical
      ? (numeric ? (distinct as number[]).sort((a, b) => a - b) : distinct.map(String).sort()).map(String)
      : undefined;
    const points: ChartPoint[] = rows.map((r, i) => ({
      x: categorical ? String(raw[i]) : (raw[i] as number),
      y: r.score as number,
      id: r.id,
      title: `${r.id}: ${knobLabel(name)} = ${String(raw[i])}, ${first?.name ?? 'score'} ${formatTick(r.score as number)}`,
    }));
    return renderChart({
      id: knobChartId(name),
      title: `${first?.name ?? 'score'} by ${knobLabel(name)}`,
      xLabel: knobLabel(name),
      yLabel: `${first?.name ?? 'score'}${first?.direction === 'min' ? ' (lower is better)' : ''}`,
      points,
      xCategories: cats,
      // Log only for magnitudes (≥ 1), never for fractions such as kv_load_ratio or a GPU share.
      xLog: !categorical && wantsLog(raw as number[]) && Math.min(...(raw as number[])) >= 1,
      yLog: wantsLog(points.map((p) => p.y), 100),
      emptyText: 'no feasible candidate varied this knob',
      width: 420,
      height: 260,
    });
  });
}
