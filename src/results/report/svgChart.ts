// The report's one chart primitive: an inline-SVG scatter/strip plot with axes, nice ticks, optional
// log axes, a categorical x axis with jittered strips and quartile boxes, and overlay lines. Each
// data point is a <circle data-id> with a <title> tooltip, so the page stays self-contained.
import { esc } from './escape.js';
import { formatTick, makeScale, type Scale } from './scale.js';

export interface ChartPoint {
  /** Numeric x, or a category (must be listed in `xCategories`). */
  x: number | string;
  y: number;
  id: string;
  title: string;
  className?: string;
}

export interface ChartLine {
  points: { x: number; y: number }[];
  className: string;
  /** Draw as a staircase (front / best-so-far). */
  step?: 'after' | 'before';
}

export interface ChartSpec {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  points: ChartPoint[];
  lines?: ChartLine[];
  xLog?: boolean;
  yLog?: boolean;
  /** Categorical x axis: strips in this order, with a quartile box per strip. */
  xCategories?: string[];
  /** Text shown when there is nothing to plot. */
  emptyText?: string;
  width?: number;
  height?: number;
  /** Span the whole chart grid row. */
  wide?: boolean;
}

const M = { top: 14, right: 18, bottom: 46, left: 64 };

function fmt(n: number): string {
  return Number.isFinite(n) ? String(Math.round(n * 10) / 10) : '0';
}

/** Deterministic jitter in [-0.5, 0.5) from a point's id, so strips do not overplot. */
function jitter(id: string): number {
  let h = 2166136261;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619);
  return ((h >>> 0) % 1000) / 1000 - 0.5;
}

function quantile(sorted: number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

function axisY(y: Scale, x0: number, x1: number, label: string, height: number): string {
  const ticks = y.ticks
    .map((t) => {
      const py = fmt(y(t));
      return `<line class="grid" x1="${x0}" x2="${x1}" y1="${py}" y2="${py}"/><text class="tick" x="${x0 - 6}" y="${py}" dy="0.32em" text-anchor="end">${esc(formatTick(t))}</text>`;
    })
    .join('');
  const mid = fmt((M.top + height - M.bottom) / 2);
  return `${ticks}<text class="axis-label" transform="translate(14 ${mid}) rotate(-90)" text-anchor="middle">${esc(label)}${y.log ? ' (log)' : ''}</text>`;
}

export function renderChart(spec: ChartSpec): string {
  const W = spec.width ?? 640;
  const H = spec.height ?? 360;
  const x0 = M.left;
  const x1 = W - M.right;
  const yBottom = H - M.bottom;
  const yTop = M.top;
  const cats = spec.xCategories;
  const ys = spec.points.map((p) => p.y).concat((spec.lines ?? []).flatMap((l) => l.points.map((p) => p.y)));
  const y = makeScale(ys, [yBottom, yTop], { log: spec.yLog });
  const parts: string[] = [];
  parts.push(`<title>${esc(spec.title)}</title>`);
  parts.push(axisY(y, x0, x1, spec.yLabel, H));

  let px: (p: ChartPoint) => number;
  let lineX: (v: number) => number;
  let xLabel = spec.xLabel;
  if (cats) {
    const band = (x1 - x0) / Math.max(1, cats.length);
    const centre = (c: string) => x0 + band * (cats.indexOf(c) + 0.5);
    px = (p) => centre(String(p.x)) + jitter(p.id) * band * 0.5;
    lineX = (v) => x0 + band * (v + 0.5);
    cats.forEach((c, i) => {
      const cx = fmt(x0 + band * (i + 0.5));
      // ~6.5 px per character at the tick font size: truncate to the band.
      const maxChars = Math.max(3, Math.floor((band - 6) / 6.5));
      parts.push(`<text class="tick" x="${cx}" y="${yBottom + 16}" text-anchor="middle">${esc(c.length > maxChars ? `${c.slice(0, maxChars - 1)}…` : c)}<title>${esc(c)}</title></text>`);
      const vals = spec.points.filter((p) => String(p.x) === c).map((p) => p.y).sort((a, b) => a - b);
      if (vals.length >= 2) {
        const [q1, med, q3] = [quantile(vals, 0.25), quantile(vals, 0.5), quantile(vals, 0.75)];
        const w = band * 0.6;
        const left = fmt(x0 + band * (i + 0.5) - w / 2);
        parts.push(
          `<rect class="box" x="${left}" y="${fmt(y(q3))}" width="${fmt(w)}" height="${fmt(Math.max(1, y(q1) - y(q3)))}"><title>${esc(`${c}: n=${vals.length}, median ${formatTick(med)}, IQR ${formatTick(q1)}–${formatTick(q3)}`)}</title></rect>`,
          `<line class="median" x1="${left}" x2="${fmt(x0 + band * (i + 0.5) + w / 2)}" y1="${fmt(y(med))}" y2="${fmt(y(med))}"/>`,
        );
      }
    });
  } else {
    const xs = spec.points.map((p) => p.x as number).concat((spec.lines ?? []).flatMap((l) => l.points.map((p) => p.x)));
    const x = makeScale(xs, [x0, x1], { log: spec.xLog });
    px = (p) => x(p.x as number);
    lineX = x;
    for (const t of x.ticks) {
      const tx = fmt(x(t));
      parts.push(`<line class="grid" x1="${tx}" x2="${tx}" y1="${yTop}" y2="${yBottom}"/><text class="tick" x="${tx}" y="${yBottom + 16}" text-anchor="middle">${esc(formatTick(t))}</text>`);
    }
    if (x.log) xLabel += ' (log)';
  }
  parts.push(`<line class="axis" x1="${x0}" x2="${x1}" y1="${yBottom}" y2="${yBottom}"/><line class="axis" x1="${x0}" x2="${x0}" y1="${yTop}" y2="${yBottom}"/>`);
  parts.push(`<text class="axis-label" x="${fmt((x0 + x1) / 2)}" y="${H - 8}" text-anchor="middle">${esc(xLabel)}</text>`);

  for (const l of spec.lines ?? []) {
    if (l.points.length === 0) continue;
    const coords: string[] = [];
    l.points.forEach((p, i) => {
      const cx = lineX(p.x);
      const cy = y(p.y);
      if (i > 0 && l.step) {
        const prev = l.points[i - 1];
        coords.push(l.step === 'after' ? `${fmt(cx)},${fmt(y(prev.y))}` : `${fmt(lineX(prev.x))},${fmt(cy)}`);
      }
      coords.push(`${fmt(cx)},${fmt(cy)}`);
    });
    parts.push(`<polyline class="${esc(l.className)}" points="${coords.join(' ')}"/>`);
  }

  for (const p of spec.points) {
    parts.push(
      `<circle class="${esc(p.className ?? 'pt')}" cx="${fmt(px(p))}" cy="${fmt(y(p.y))}" r="${p.className?.includes('front') ? 5 : 3.5}" data-id="${esc(p.id)}"><title>${esc(p.title)}</title></circle>`,
    );
  }
  if (spec.points.length === 0)
    parts.push(`<text class="empty" x="${fmt((x0 + x1) / 2)}" y="${fmt((yTop + yBottom) / 2)}" text-anchor="middle">${esc(spec.emptyText ?? 'no data')}</text>`);

  return `<figure class="chart${spec.wide ? ' wide' : ''}"><svg id="${esc(spec.id)}" class="chart-svg" viewBox="0 0 ${W} ${H}" preserveAspectRatio="xMidYMid meet" role="img" xmlns="http://www.w3.org/2000/svg">${parts.join('')}</svg><figcaption>${esc(spec.title)}</figcaption></figure>`;
}
