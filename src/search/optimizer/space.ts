// The search space as the optimizer sees it, and its numeric encoding for the GP.
// `Dimension` is structurally identical to the config engineer's `src/search/dimensions.ts`.
// Kept as plain types (no zod) so the optimizer stays dependency-free workflow code; the config
// layer validates user input, `validateSpace` re-checks the invariants the math relies on.
import { InputError } from '../../errors.js';
import type { Prng } from './prng.js';

export type DimensionValue = string | number | boolean;

export interface Dimension {
  name: string;
  kind: 'categorical' | 'discrete' | 'continuous';
  /** categorical/discrete: the members; continuous: [min, max]. */
  values: DimensionValue[];
  log_scale?: boolean;
}

export type Point = Record<string, DimensionValue>;

export function validateSpace(space: readonly Dimension[]): void {
  if (space.length === 0) throw new InputError('optimizer: the search space has no dimensions');
  const seen = new Set<string>();
  for (const d of space) {
    if (seen.has(d.name)) throw new InputError(`optimizer: duplicate dimension name '${d.name}'`);
    seen.add(d.name);
    if (d.values.length === 0) throw new InputError(`optimizer: dimension '${d.name}' has no values`);
    if (d.kind === 'categorical') continue;
    if (!d.values.every((v) => typeof v === 'number' && Number.isFinite(v)))
      throw new InputError(`optimizer: ${d.kind} dimension '${d.name}' needs finite numbers (use categorical otherwise)`);
    const nums = d.values as number[];
    if (d.log_scale && nums.some((v) => v <= 0))
      throw new InputError(`optimizer: log-scale dimension '${d.name}' needs values > 0`);
    if (d.kind === 'continuous' && (nums.length !== 2 || nums[0] > nums[1]))
      throw new InputError(`optimizer: continuous dimension '${d.name}' needs values [min, max] with min <= max`);
  }
}

/** `p` with exactly the space's dimensions (e.g. a projector's image, which may carry more). */
export function restrictToSpace(space: readonly Dimension[], p: Point): Point {
  return Object.fromEntries(space.map((d) => [d.name, p[d.name]]));
}

/**
 * Canonical string for a point (dimension order, type-tagged values): used for dedup and pending
 * matching. Hot path (called per candidate), hence not JSON.stringify.
 */
export function pointKey(space: readonly Dimension[], p: Point): string {
  let key = '';
  for (const d of space) {
    const v = p[d.name];
    key += (typeof v === 'number' ? 'n' : typeof v === 'string' ? 's' : typeof v === 'boolean' ? 'b' : 'u') + String(v) + '\u0001';
  }
  return key;
}

/** Number of points of a space with only finite dimensions; Infinity if any dimension is continuous. */
export function finiteSize(space: readonly Dimension[]): number {
  let n = 1;
  for (const d of space) {
    if (d.kind === 'continuous') return Infinity;
    n *= d.values.length;
  }
  return n;
}

function toUnit(d: Dimension, v: number, [lo, hi]: readonly [number, number] = numericRange(d)): number {
  if (hi === lo) return 0;
  return d.log_scale ? (Math.log(v) - Math.log(lo)) / (Math.log(hi) - Math.log(lo)) : (v - lo) / (hi - lo);
}

function fromUnit(d: Dimension, t: number, [lo, hi]: readonly [number, number]): number {
  const u = Math.min(1, Math.max(0, t));
  return d.log_scale ? Math.exp(Math.log(lo) + u * (Math.log(hi) - Math.log(lo))) : lo + u * (hi - lo);
}

function numericRange(d: Dimension): [number, number] {
  const nums = d.values as number[];
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of nums) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return [lo, hi];
}

/**
 * Numeric view of a space. Each dimension owns a contiguous group of features: one-hot for
 * categoricals, one [0,1] coordinate (log where `log_scale`) for discrete/continuous. Length
 * scales are tied per dimension (ARD per dimension, not per one-hot column).
 */
export class SpaceCodec {
  readonly featureCount: number;
  /** Per feature, the index of the dimension it belongs to. */
  readonly featureDim: Int32Array;
  private readonly offsets: number[];
  private readonly unitMembers: (Float64Array | null)[];
  /** [min, max] of each numeric dimension (unused for categoricals). */
  private readonly ranges: [number, number][];
  /** Members of each discrete dimension in ascending order (null otherwise). */
  private readonly sortedMembers: (number[] | null)[];

  constructor(readonly space: readonly Dimension[]) {
    this.offsets = [];
    const featureDim: number[] = [];
    for (let i = 0; i < space.length; i++) {
      this.offsets.push(featureDim.length);
      const width = space[i].kind === 'categorical' ? space[i].values.length : 1;
      for (let k = 0; k < width; k++) featureDim.push(i);
    }
    this.featureCount = featureDim.length;
    this.featureDim = Int32Array.from(featureDim);
    this.ranges = space.map((d): [number, number] => (d.kind === 'categorical' ? [0, 0] : numericRange(d)));
    this.sortedMembers = space.map((d) => (d.kind === 'discrete' ? [...new Set(d.values as number[])].sort((a, b) => a - b) : null));
    this.unitMembers = space.map((d) =>
      d.kind === 'discrete' ? Float64Array.from((d.values as number[]).map((v) => toUnit(d, v))) : null,
    );
  }

  /** Index of the first feature of dimension `i` (its only one unless categorical). */
  featureOffset(i: number): number {
    return this.offsets[i];
  }

  get dimCount(): number {
    return this.space.length;
  }

  encode(p: Point): Float64Array {
    const x = new Float64Array(this.featureCount);
    this.space.forEach((d, i) => {
      const v = p[d.name];
      if (d.kind === 'categorical') {
        const k = d.values.indexOf(v);
        if (k < 0) throw new InputError(`optimizer: value ${JSON.stringify(v)} is not a member of '${d.name}'`);
        x[this.offsets[i] + k] = 1;
      } else {
        if (typeof v !== 'number' || !Number.isFinite(v))
          throw new InputError(`optimizer: dimension '${d.name}' needs a finite number, got ${JSON.stringify(v)}`);
        x[this.offsets[i]] = toUnit(d, v, this.ranges[i]);
      }
    });
    return x;
  }

  /** Point from one unit coordinate per dimension (quasi-random designs): index-uniform for finite dims. */
  fromUnitCube(u: ArrayLike<number>): Point {
    const p: Point = {};
    this.space.forEach((d, i) => {
      const t = Math.min(u[i], 1 - 1e-12);
      if (d.kind === 'continuous') p[d.name] = fromUnit(d, t, this.ranges[i]);
      else p[d.name] = d.values[Math.floor(t * d.values.length)];
    });
    return p;
  }

  /** Uniform point: uniform member for finite dims, uniform (log-uniform if log_scale) for continuous. */
  sampleUniform(rng: Prng): Point {
    const u = new Float64Array(this.space.length);
    for (let i = 0; i < u.length; i++) u[i] = rng.next();
    return this.fromUnitCube(u);
  }

  /**
   * Local move around `p`: each numeric coordinate moves by N(0, radius) in unit space (reflected
   * into [0,1], discrete snapped to the nearest member); each categorical switches with probability
   * `radius`. May return `p` itself in a discrete space; callers dedup by `pointKey`.
   */
  perturb(p: Point, radius: number, rng: Prng): Point {
    const q: Point = { ...p };
    this.space.forEach((d, i) => {
      if (d.kind === 'categorical') {
        if (d.values.length > 1 && rng.next() < radius) q[d.name] = d.values[rng.int(d.values.length)];
        return;
      }
      let t = toUnit(d, p[d.name] as number, this.ranges[i]) + radius * rng.normal();
      t = t < 0 ? -t : t;
      t = t > 1 ? 2 - t : t;
      t = Math.min(1, Math.max(0, t));
      q[d.name] = d.kind === 'continuous' ? fromUnit(d, t, this.ranges[i]) : this.snap(i, t);
    });
    return q;
  }

  /**
   * A neighbour of `p` that differs in exactly `changes` dimensions (fewer if the space has fewer with
   * more than one value): a categorical takes another member, a discrete steps to an adjacent member
   * (two steps with probability ¼), a continuous moves by N(0, 0.15) in unit space. Unlike `perturb`,
   * every finite dimension really changes — small Gaussian moves snap back to the same member, so in a
   * mostly-discrete space they would only jiggle the continuous coordinates.
   */
  neighbour(p: Point, changes: number, rng: Prng): Point {
    const q: Point = { ...p };
    const movable: number[] = [];
    this.space.forEach((d, i) => {
      if (d.kind === 'continuous' ? this.ranges[i][1] > this.ranges[i][0] : d.values.length > 1) movable.push(i);
    });
    for (let c = 0; c < changes && movable.length > 0; c++) {
      const i = movable.splice(rng.int(movable.length), 1)[0];
      const d = this.space[i];
      if (d.kind === 'categorical') {
        const k = d.values.indexOf(p[d.name]);
        const r = rng.int(d.values.length - 1);
        q[d.name] = d.values[r >= k ? r + 1 : r];
      } else if (d.kind === 'discrete') {
        const order = this.sortedMembers[i]!;
        const k = order.indexOf(p[d.name] as number);
        const step = (rng.next() < 0.25 ? 2 : 1) * (rng.next() < 0.5 ? -1 : 1);
        let j = k + step;
        if (j < 0 || j >= order.length) j = k - step;
        q[d.name] = order[Math.min(order.length - 1, Math.max(0, j))];
      } else {
        let t = toUnit(d, p[d.name] as number, this.ranges[i]) + 0.15 * rng.normal();
        t = t < 0 ? -t : t;
        t = t > 1 ? 2 - t : t;
        q[d.name] = fromUnit(d, Math.min(1, Math.max(0, t)), this.ranges[i]);
      }
    }
    return q;
  }

  /** Unit-space coordinate of value `v` of numeric dimension `i` (log where `log_scale`). */
  unitOf(i: number, v: number): number {
    return toUnit(this.space[i], v, this.ranges[i]);
  }

  /** Value of numeric dimension `i` at unit coordinate `t`: continuous exactly, discrete snapped. */
  valueAt(i: number, t: number): number {
    const d = this.space[i];
    return d.kind === 'continuous' ? fromUnit(d, t, this.ranges[i]) : (this.snap(i, t) as number);
  }

  /** Nearest member (in unit space) of discrete dimension `i`; ties go to the earlier member. */
  private snap(i: number, t: number): DimensionValue {
    const members = this.unitMembers[i]!;
    let best = 0;
    for (let k = 1; k < members.length; k++) if (Math.abs(members[k] - t) < Math.abs(members[best] - t)) best = k;
    return this.space[i].values[best];
  }

  /** Rejects points with missing or foreign values (so a caller bug is not silently modelled). */
  checkPoint(p: Point): void {
    this.encode(p);
    this.space.forEach((d, i) => {
      if (d.kind === 'discrete' && !d.values.includes(p[d.name]))
        throw new InputError(`optimizer: value ${JSON.stringify(p[d.name])} is not a member of '${d.name}'`);
      if (d.kind === 'continuous') {
        const v = p[d.name] as number;
        const [lo, hi] = this.ranges[i];
        if (v < lo - 1e-9 * Math.max(1, Math.abs(lo)) || v > hi + 1e-9 * Math.max(1, Math.abs(hi)))
          throw new InputError(`optimizer: value ${v} is outside '${d.name}' [${lo}, ${hi}]`);
      }
    });
  }
}
