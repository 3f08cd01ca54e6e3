// Pareto dominance, the exact non-dominated front, and hypervolume (dynamo-facts §3).
// Dominance after sign normalization (min objectives negated): a dominates b iff a ≥ b on every
// objective and a > b on at least one. Identical points do not dominate each other, so duplicates
// on the front are all kept. The front is sorted ascending by the LAST objective's raw value
// (ties: input order), as the sweeper reports it.
import { InputError } from '../errors.js';

export type Direction = 'max' | 'min';

function normalized(values: readonly number[], directions: readonly Direction[]): number[] {
  if (values.length !== directions.length)
    throw new InputError(`pareto: a point has ${values.length} objectives, expected ${directions.length}`);
  return values.map((v, i) => {
    if (Number.isNaN(v)) throw new InputError('pareto: objective values must not be NaN');
    return directions[i] === 'max' ? v : -v;
  });
}

/** a dominates b (raw values, per-objective directions). */
export function dominates(a: readonly number[], b: readonly number[], directions: readonly Direction[]): boolean {
  const x = normalized(a, directions);
  const y = normalized(b, directions);
  let strictly = false;
  for (let i = 0; i < x.length; i++) {
    if (x[i] < y[i]) return false;
    if (x[i] > y[i]) strictly = true;
  }
  return strictly;
}

/** Indices of the non-dominated items, sorted ascending by the last objective (ties: input order). */
export function paretoFrontIndices(points: readonly (readonly number[])[], directions: readonly Direction[]): number[] {
  if (directions.length === 0) throw new InputError('pareto: at least one objective direction is required');
  const norm = points.map((p) => normalized(p, directions));
  // Lexicographically descending order: any dominator of p precedes p, and if p is dominated by a
  // non-front point it is also dominated by that point's own (earlier) dominator on the front.
  const order = norm
    .map((_, i) => i)
    .sort((a, b) => {
      for (let k = 0; k < directions.length; k++) if (norm[a][k] !== norm[b][k]) return norm[b][k] - norm[a][k];
      return a - b;
    });
  const front: number[] = [];
  for (const i of order) {
    const p = norm[i];
    const dominated = front.some((j) => {
      const q = norm[j];
      let strictly = false;
      for (let k = 0; k < p.length; k++) {
        if (q[k] < p[k]) return false;
        if (q[k] > p[k]) strictly = true;
      }
      return strictly;
    });
    if (!dominated) front.push(i);
  }
  const last = directions.length - 1;
  return front.sort((a, b) => points[a][last] - points[b][last] || a - b);
}

/** The exact non-dominated subset of raw objective vectors, sorted ascending by the last objective. */
export function paretoFront<T extends readonly number[]>(points: readonly T[], directions: readonly Direction[]): T[] {
  return paretoFrontIndices(points, directions).map((i) => points[i]);
}

/** The non-dominated items of any type, given how to read their objective vector. */
export function paretoFrontBy<T>(items: readonly T[], directions: readonly Direction[], values: (item: T) => readonly number[]): T[] {
  return paretoFrontIndices(items.map(values), directions).map((i) => items[i]);
}

function prepare(front: readonly (readonly number[])[], ref: readonly number[], directions?: readonly Direction[]) {
  const dirs = directions ?? ref.map((): Direction => 'max');
  const r = normalized(ref, dirs);
  if (r.some((v) => !Number.isFinite(v))) throw new InputError('pareto: the hypervolume reference point must be finite');
  // Only points strictly better than the reference on every objective enclose any volume.
  const pts = front.map((p) => normalized(p, dirs)).filter((p) => p.every((v, i) => v > r[i]));
  return { pts, r };
}

/** Area dominated by a set of 2-objective points and bounded by `ref` (directions default to max/max). */
export function hypervolume2d(front: readonly (readonly number[])[], ref: readonly number[], directions?: readonly Direction[]): number {
  if (ref.length !== 2) throw new InputError('pareto: hypervolume2d needs a 2-objective reference point');
  const { pts, r } = prepare(front, ref, directions);
  return area2d(pts, r);
}

function area2d(pts: number[][], r: readonly number[]): number {
  // Horizontal strips: sweep by decreasing x; each point adds the strip above the best y so far.
  const sorted = pts.slice().sort((a, b) => b[0] - a[0] || b[1] - a[1]);
  let area = 0;
  let top = r[1];
  for (const [x, y] of sorted) {
    if (y > top) {
      area += (x - r[0]) * (y - top);
      top = y;
    }
  }
  return area;
}

/**
 * Exact hypervolume for any number of objectives by slicing (HSO, While et al. 2006): sweep the last
 * objective from best to worst and integrate the (d−1)-objective volume of the points above each
 * slab; the 2-objective base case is the strip sweep. O(n^(d−1) log n): exact and fast for 2–3
 * objectives; for 4+ objectives it stays exact but is meant for fronts of at most a few hundred points.
 */
export function hypervolume(front: readonly (readonly number[])[], ref: readonly number[], directions?: readonly Direction[]): number {
  if (ref.length === 0) throw new InputError('pareto: hypervolume needs at least one objective');
  const { pts, r } = prepare(front, ref, directions);
  return slice(pts, r, ref.length);
}

function slice(pts: number[][], r: readonly number[], d: number): number {
  if (pts.length === 0) return 0;
  if (d === 1) return Math.max(...pts.map((p) => p[0])) - r[0];
  if (d === 2) return area2d(pts, r);
  const sorted = pts.slice().sort((a, b) => b[d - 1] - a[d - 1]);
  let vol = 0;
  for (let k = 0; k < sorted.length; k++) {
    const lower = k + 1 < sorted.length ? sorted[k + 1][d - 1] : r[d - 1];
    const depth = sorted[k][d - 1] - lower;
    if (depth > 0) vol += depth * slice(sorted.slice(0, k + 1), r, d - 1);
  }
  return vol;
}
