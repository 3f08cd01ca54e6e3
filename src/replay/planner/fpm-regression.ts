// Forward-pass-metric (FPM) regressions of load scaling (dynamo-facts §5): pass wall time as a
// linear function of the pass's prefill tokens (prefill engines), decode KV tokens (decode engines),
// or both (agg engines). Fit on the last `max_num_fpm_samples` passes, bucketed first so a long run of
// passes at one load cannot drown the few at another: the sample range is cut into
// `fpm_sample_bucket_size` equal cells (√size × √size for the 2-D agg fit — hence a perfect square),
// each non-empty cell contributes its mean point once, and least squares runs on those points.
// Slopes are kept ≥ 0 (more tokens never make a pass faster): a feature whose fitted slope is
// negative or unidentifiable (no spread) is dropped and the rest refitted — except prefill passes all
// of one size, which are taken as proportional to their tokens.

export type FpmKind = 'prefill' | 'decode' | 'agg';

/** Ring buffer of the last `capacity` passes of one engine. */
export class FpmWindow {
  readonly prefill: Float64Array;
  readonly decode: Float64Array;
  readonly wall: Float64Array;
  private n = 0;
  private head = 0;

  constructor(readonly capacity: number) {
    this.prefill = new Float64Array(capacity);
    this.decode = new Float64Array(capacity);
    this.wall = new Float64Array(capacity);
  }

  get size(): number {
    return this.n;
  }

  add(prefillTokens: number, decodeKvTokens: number, wallMs: number): void {
    const i = this.head;
    this.prefill[i] = prefillTokens;
    this.decode[i] = decodeKvTokens;
    this.wall[i] = wallMs;
    this.head = (i + 1) % this.capacity;
    if (this.n < this.capacity) this.n++;
  }
}

/** wallMs ≈ intercept + perPrefillToken·prefill + perDecodeKvToken·decodeKv. */
export interface PassTimeModel {
  intercept: number;
  perPrefillToken: number;
  perDecodeKvToken: number;
}

export function predictPassMs(m: PassTimeModel, prefillTokens: number, decodeKvTokens: number): number {
  return Math.max(0, m.intercept + m.perPrefillToken * prefillTokens + m.perDecodeKvToken * decodeKvTokens);
}

interface Points {
  p: number[];
  k: number[];
  y: number[];
}

/** Mean point of each non-empty cell of an equal-width grid over the samples' range. */
function bucketMeans(windows: readonly FpmWindow[], kind: FpmKind, bucketSize: number): Points {
  const usesP = kind !== 'decode';
  const usesK = kind !== 'prefill';
  const side = kind === 'agg' ? Math.max(1, Math.round(Math.sqrt(bucketSize))) : Math.max(1, bucketSize);
  let pMin = Infinity;
  let pMax = -Infinity;
  let kMin = Infinity;
  let kMax = -Infinity;
  for (const w of windows)
    for (let i = 0; i < w.size; i++) {
      const p = w.prefill[i];
      const k = w.decode[i];
      if (p < pMin) pMin = p;
      if (p > pMax) pMax = p;
      if (k < kMin) kMin = k;
      if (k > kMax) kMax = k;
    }
  const cell = (v: number, lo: number, hi: number) => (hi > lo ? Math.min(side - 1, Math.floor(((v - lo) / (hi - lo)) * side)) : 0);
  const cells = new Map<number, { p: number; k: number; y: number; n: number }>();
  for (const w of windows)
    for (let i = 0; i < w.size; i++) {
      const cp = usesP ? cell(w.prefill[i], pMin, pMax) : 0;
      const ck = usesK ? cell(w.decode[i], kMin, kMax) : 0;
      const key = cp * side + ck;
      let c = cells.get(key);
      if (!c) cells.set(key, (c = { p: 0, k: 0, y: 0, n: 0 }));
      c.p += w.prefill[i];
      c.k += w.decode[i];
      c.y += w.wall[i];
      c.n++;
    }
  const out: Points = { p: [], k: [], y: [] };
  // Cell order is irrelevant to least squares but kept sorted so the fit is bit-for-bit deterministic.
  for (const key of [...cells.keys()].sort((a, b) => a - b)) {
    const c = cells.get(key)!;
    out.p.push(c.p / c.n);
    out.k.push(c.k / c.n);
    out.y.push(c.y / c.n);
  }
  return out;
}

function mean(xs: number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return xs.length > 0 ? s / xs.length : 0;
}

/** Least squares of y on the chosen features (centered), slopes ≥ 0; unusable features dropped. */
function fit(pts: Points, useP: boolean, useK: boolean): PassTimeModel {
  const pm = mean(pts.p);
  const km = mean(pts.k);
  const ym = mean(pts.y);
  let spp = 0;
  let skk = 0;
  let spk = 0;
  let spy = 0;
  let sky = 0;
  for (let i = 0; i < pts.y.length; i++) {
    const dp = pts.p[i] - pm;
    const dk = pts.k[i] - km;
    const dy = pts.y[i] - ym;
    spp += dp * dp;
    skk += dk * dk;
    spk += dp * dk;
    spy += dp * dy;
    sky += dk * dy;
  }
  const okP = useP && spp > 0;
  const okK = useK && skk > 0;
  let b = 0;
  let c = 0;
  if (okP && okK) {
    const det = spp * skk - spk * spk;
    // Collinear loads (prefill and decode rising together) cannot be told apart: fit one of them.
    if (det > 1e-9 * spp * skk) {
      b = (spy * skk - sky * spk) / det;
      c = (sky * spp - spy * spk) / det;
    }
    if (!(det > 1e-9 * spp * skk) || b < 0 || c < 0) {
      const onlyP = fit(pts, true, false);
      const onlyK = fit(pts, false, true);
      return sse(pts, onlyP) <= sse(pts, onlyK) ? onlyP : onlyK;
    }
  } else if (okP) b = Math.max(0, spy / spp);
  else if (okK) c = Math.max(0, sky / skk);
  return { intercept: ym - b * pm - c * km, perPrefillToken: b, perDecodeKvToken: c };
}

function sse(pts: Points, m: PassTimeModel): number {
  let s = 0;
  for (let i = 0; i < pts.y.length; i++) {
    const e = pts.y[i] - (m.intercept + m.perPrefillToken * pts.p[i] + m.perDecodeKvToken * pts.k[i]);
    s += e * e;
  }
  return s;
}

/** Fits the pass-time model of one engine kind from its window(s); null when they hold no sample. */
export function fitPassTime(windows: readonly FpmWindow[], kind: FpmKind, bucketSize: number): PassTimeModel | null {
  let n = 0;
  for (const w of windows) n += w.size;
  if (n === 0) return null;
  const pts = bucketMeans(windows, kind, bucketSize);
  if (kind === 'prefill' && pts.y.length === 1 && pts.p[0] > 0) {
    // Every pass the same size: no line to fit. Prefill cost is close to proportional to its
    // tokens, so extrapolate through the origin rather than call a bigger pass as fast as this one.
    return { intercept: 0, perPrefillToken: pts.y[0] / pts.p[0], perDecodeKvToken: 0 };
  }
  return fit(pts, kind !== 'decode', kind !== 'prefill');
}
