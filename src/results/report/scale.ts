// Axis scales for the report's SVG charts: linear or log10 mapping of a data domain onto pixels,
// with "nice" ticks (1/2/5 × 10^k steps; decades on log axes) so labels read as round numbers.

export interface Scale {
  (value: number): number;
  domain: [number, number];
  ticks: number[];
  log: boolean;
}

/** A step of 1, 2 or 5 × 10^k close to span / count. */
export function niceStep(span: number, count: number): number {
  if (!(span > 0) || !Number.isFinite(span)) return 1;
  const raw = span / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/** Round numbers covering [min, max] (the domain is widened to the outer ticks). */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (min === max) {
    const pad = min === 0 ? 1 : Math.abs(min) * 0.1;
    return niceTicks(min - pad, max + pad, count);
  }
  const step = niceStep(max - min, count);
  const start = Math.floor(min / step) * step;
  const end = Math.ceil(max / step) * step;
  const out: number[] = [];
  // Snap to the step's decimals so 0.1 + 0.2 prints as 0.3.
  const decimals = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  for (let v = start; v <= end + step / 2; v += step) out.push(Number(v.toFixed(decimals)));
  return out;
}

/** Powers of ten covering [min, max] (both > 0); 2× and 5× marks too when under three decades. */
export function logTicks(min: number, max: number): number[] {
  const lo = Math.floor(Math.log10(min));
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(max)));
  const out: number[] = [];
  for (let e = lo; e <= hi; e++) {
    const base = 10 ** e;
    out.push(Number(base.toPrecision(12)));
    if (hi - lo < 3 && e < hi) out.push(Number((2 * base).toPrecision(12)), Number((5 * base).toPrecision(12)));
  }
  // Trim marks beyond the data on both ends, keeping one enclosing tick each side.
  let first = 0;
  for (let i = 0; i < out.length; i++) if (out[i] <= min) first = i;
  const lastIdx = out.findIndex((t) => t >= max);
  return out.slice(first, lastIdx === -1 ? out.length : lastIdx + 1);
}

/** Log axes when every value is positive and they span more than `ratio` (default 30×). */
export function wantsLog(values: readonly number[], ratio = 30): boolean {
  if (values.length < 2 || values.some((v) => !(v > 0))) return false;
  return Math.max(...values) / Math.min(...values) > ratio;
}

export function makeScale(values: readonly number[], range: [number, number], opts: { log?: boolean; zero?: boolean } = {}): Scale {
  const finite = values.filter((v) => Number.isFinite(v));
  const log = Boolean(opts.log) && finite.length > 0 && finite.every((v) => v > 0);
  let lo = finite.length ? Math.min(...finite) : 0;
  let hi = finite.length ? Math.max(...finite) : 1;
  if (opts.zero && !log) {
    lo = Math.min(0, lo);
    hi = Math.max(0, hi);
  }
  const ticks = log ? logTicks(lo, hi) : niceTicks(lo, hi);
  const d0 = Math.min(ticks[0], lo);
  const d1 = Math.max(ticks[ticks.length - 1], hi);
  const t = log ? Math.log10 : (v: number) => v;
  const a = t(d0);
  const b = t(d1);
  const scale = ((v: number) => {
    const f = b === a ? 0.5 : (t(v) - a) / (b - a);
    return range[0] + f * (range[1] - range[0]);
  }) as Scale;
  scale.domain = [d0, d1];
  scale.ticks = ticks;
  scale.log = log;
  return scale;
}

/** Compact tick label: 1.2k, 3M, 0.05, 250. */
export function formatTick(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e9) return `${trim(v / 1e9)}G`;
  if (a >= 1e6) return `${trim(v / 1e6)}M`;
  if (a >= 1e4) return `${trim(v / 1e3)}k`;
  return trim(v);
}

function trim(v: number): string {
  return String(Number(v.toPrecision(4)));
}
