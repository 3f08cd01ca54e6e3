import { deflateRawSync, inflateRawSync } from 'node:zlib';
// A smooth function on a regular grid in log space, fitted by regularised least squares.
// The perf model stores every efficiency curve (log utilisation vs log problem size) as one of these:
// compact (a few hundred to a few thousand knots), cheap to evaluate (multilinear, 2^d corners),
// and flat beyond the data (first-difference smoothing extrapolates by holding the boundary value,
// which is AIC's "util-hold" rule).

/** One axis: knots at lo, lo+step, …, lo+(n−1)·step (log2 units). */
export interface GridAxis {
  lo: number;
  step: number;
  n: number;
}

export interface Grid {
  axes: GridAxis[];
  /** Row-major values, last axis fastest. */
  values: Float64Array;
}

/** Multilinear interpolation, clamped to the grid box (beyond the knots the edge value holds). */
export function evalGrid(g: Grid, x: readonly number[]): number {
  const d = g.axes.length;
  let base = 0;
  let stride = 1;
  // Compute per-axis cell index and fraction; strides from the last axis.
  const frac = FRAC;
  const strides = STRIDES;
  for (let a = d - 1; a >= 0; a--) {
    const ax = g.axes[a];
    strides[a] = stride;
    let t = (x[a] - ax.lo) / ax.step;
    if (!(t > 0)) t = 0; // also catches NaN
    const max = ax.n - 1;
    if (t >= max) t = max;
    let i = Math.floor(t);
    if (i >= max) i = Math.max(0, max - 1);
    frac[a] = max === 0 ? 0 : t - i;
    base += i * stride;
    stride *= ax.n;
  }
  let sum = 0;
  const corners = 1 << d;
  for (let c = 0; c < corners; c++) {
    let w = 1;
    let off = base;
    for (let a = 0; a < d; a++) {
      if (c & (1 << a)) {
        if (g.axes[a].n === 1) { w = 0; break; }
        w *= frac[a];
        off += strides[a];
      } else {
        w *= 1 - frac[a];
      }
    }
    if (w !== 0) sum += w * g.values[off];
  }
  return sum;
}
// Scratch space reused across calls (evaluation is on the simulator's hot path; grids have ≤ 8 axes).
const FRAC = new Float64Array(8);
const STRIDES = new Int32Array(8);

export interface FitOptions {
  /** Weight of the first-difference smoothness penalty between neighbouring knots. */
  smooth?: number;
  iterations?: number;
}

/**
 * Least-squares fit of knot values so that evalGrid(g, x_i) ≈ y_i, with a first-difference penalty that
 * ties unsupported knots to their neighbours. Solved by conjugate gradients on the normal equations
 * (matrix-free: each iteration is O(points·2^d + knots·d)).
 */
export function fitGrid(axes: GridAxis[], xs: readonly (readonly number[])[], ys: readonly number[], opts: FitOptions = {}): Grid {
  const d = axes.length;
  const size = axes.reduce((p, a) => p * a.n, 1);
  const lambda = opts.smooth ?? 0.02;
  const iters = opts.iterations ?? 150;
  const corners = 1 << d;
  // Precompute each point's corner offsets and weights.
  const np = xs.length;
  const offs = new Int32Array(np * corners);
  const wts = new Float64Array(np * corners);
  const strides: number[] = new Array(d);
  let s = 1;
  for (let a = d - 1; a >= 0; a--) { strides[a] = s; s *= axes[a].n; }
  for (let p = 0; p < np; p++) {
    const x = xs[p];
    let base = 0;
    const fr: number[] = new Array(d);
    for (let a = 0; a < d; a++) {
      const ax = axes[a];
      let t = (x[a] - ax.lo) / ax.step;
      const max = ax.n - 1;
      if (!(t > 0)) t = 0;
      if (t >= max) t = max;
      let i = Math.floor(t);
      if (i >= max) i = Math.max(0, max - 1);
      fr[a] = max === 0 ? 0 : t - i;
      base += i * strides[a];
    }
    for (let c = 0; c < corners; c++) {
      let w = 1;
      let off = base;
      for (let a = 0; a < d; a++) {
        if (c & (1 << a)) {
          if (axes[a].n === 1) { w = 0; break; }
          w *= fr[a];
          off += strides[a];
        } else w *= 1 - fr[a];
      }
      offs[p * corners + c] = w === 0 ? base : off;
      wts[p * corners + c] = w;
    }
  }
  // Scale the penalty with the data density so λ means the same for small and large tables.
  const lam = lambda * Math.max(1, np / size);
  const ridge = 1e-6 * Math.max(1, np / size);
  const mean = ys.reduce((a, b) => a + b, 0) / Math.max(1, np);

  const applyA = (v: Float64Array, out: Float64Array): void => {
    out.fill(0);
    for (let p = 0; p < np; p++) {
      let acc = 0;
      const o = p * corners;
      for (let c = 0; c < corners; c++) acc += wts[o + c] * v[offs[o + c]];
      for (let c = 0; c < corners; c++) out[offs[o + c]] += wts[o + c] * acc;
    }
    // First-difference penalty along each axis.
    for (let a = 0; a < d; a++) {
      const st = strides[a];
      const n = axes[a].n;
      for (let k = 0; k < size; k++) {
        const pos = Math.floor(k / st) % n;
        if (pos === n - 1) continue;
        const diff = v[k + st] - v[k];
        out[k] -= lam * diff;
        out[k + st] += lam * diff;
      }
    }
    for (let k = 0; k < size; k++) out[k] += ridge * v[k];
  };
  // Solve for the deviation from the mean (the ridge then pulls empty regions toward the mean).
  const b = new Float64Array(size);
  for (let p = 0; p < np; p++) {
    const o = p * corners;
    const r = ys[p] - mean;
    for (let c = 0; c < corners; c++) b[offs[o + c]] += wts[o + c] * r;
  }
  const x = new Float64Array(size);
  const r = Float64Array.from(b);
  const pv = Float64Array.from(b);
  const ap = new Float64Array(size);
  let rr = dot(r, r);
  const stop = 1e-12 * Math.max(1e-30, rr);
  for (let it = 0; it < iters && rr > stop; it++) {
    applyA(pv, ap);
    const alpha = rr / dot(pv, ap);
    for (let k = 0; k < size; k++) { x[k] += alpha * pv[k]; r[k] -= alpha * ap[k]; }
    const rr2 = dot(r, r);
    const beta = rr2 / rr;
    rr = rr2;
    for (let k = 0; k < size; k++) pv[k] = r[k] + beta * pv[k];
  }
  for (let k = 0; k < size; k++) x[k] += mean;
  return { axes, values: x };
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

// Compact serialisation: values quantised to 1/250 (in log2 units: ≤ 0.14 % relative) as int16,
// deflated (flat extrapolated regions compress well) and base64-encoded.
const QUANT = 250;

export interface GridJson {
  axes: GridAxis[];
  /** base64 of the deflated little-endian int16 knot values × 250. */
  q: string;
}

export function gridToJson(g: Grid): GridJson {
  const buf = Buffer.alloc(g.values.length * 2);
  for (let i = 0; i < g.values.length; i++) {
    const v = Math.max(-32768, Math.min(32767, Math.round(g.values[i] * QUANT)));
    buf.writeInt16LE(v, i * 2);
  }
  return { axes: g.axes.map((a) => ({ lo: a.lo, step: a.step, n: a.n })), q: deflateRawSync(buf, { level: 9 }).toString('base64') };
}

export function gridFromJson(j: GridJson): Grid {
  const buf = inflateRawSync(Buffer.from(j.q, 'base64'));
  const size = j.axes.reduce((p, a) => p * a.n, 1);
  if (buf.length !== size * 2) throw new Error(`grid payload has ${buf.length / 2} values, axes need ${size}`);
  const values = new Float64Array(size);
  for (let i = 0; i < size; i++) values[i] = buf.readInt16LE(i * 2) / QUANT;
  return { axes: j.axes, values };
}
