// Exhaustive coordinate neighbourhoods of a point: every point that differs from it in one (or two)
// dimensions. Random local moves sample this set; enumerating it around the incumbent guarantees the
// acquisition sees every single- and paired-coordinate change, including the moves that matter when
// several features have to change together (e.g. a latent engine size and its FFN mode) and the moves
// to a numeric dimension's extremes, where optima of resource-ratio features often sit.
import type { Point, SpaceCodec } from './space.js';

/** Unit-space steps tried on a continuous dimension besides its bounds and its centre. */
const CONTINUOUS_STEPS = [-0.15, 0.15];

/**
 * Per dimension, the values a single-coordinate move may set: every other member of a finite
 * dimension; the bounds, the centre (a jump back from a bound) and ±CONTINUOUS_STEPS (clipped) of a
 * continuous one. Empty for a dimension
 * that cannot move.
 */
export function coordinateMoves(codec: SpaceCodec, p: Point): (number | string | boolean)[][] {
  return codec.space.map((d, i) => {
    const here = p[d.name];
    if (d.kind !== 'continuous') return d.values.filter((v) => v !== here);
    const lo = Math.min(d.values[0] as number, d.values[1] as number);
    const hi = Math.max(d.values[0] as number, d.values[1] as number);
    if (hi === lo) return [];
    const t = codec.unitOf(i, here as number);
    const out: number[] = [];
    for (const u of [0, 0.5, 1, ...CONTINUOUS_STEPS.map((s) => Math.min(1, Math.max(0, t + s)))]) {
      const v = codec.valueAt(i, u);
      if (Math.abs(u - t) > 1e-9 && !out.some((w) => Math.abs(w - v) <= 1e-12 * Math.max(1, Math.abs(v)))) out.push(v);
    }
    return out;
  });
}

/**
 * Every point differing from `p` in exactly 1..`maxChanges` (≤ 2) dimensions, singles first, in a
 * deterministic order; at most `limit` points.
 */
export function coordinateNeighbourhood(codec: SpaceCodec, p: Point, maxChanges: 1 | 2, limit: number): Point[] {
  const moves = coordinateMoves(codec, p);
  const names = codec.space.map((d) => d.name);
  const out: Point[] = [];
  for (let i = 0; i < names.length && out.length < limit; i++)
    for (const v of moves[i]) {
      if (out.length >= limit) break;
      out.push({ ...p, [names[i]]: v });
    }
  if (maxChanges < 2) return out;
  for (let i = 0; i < names.length; i++)
    for (let j = i + 1; j < names.length; j++)
      for (const a of moves[i])
        for (const b of moves[j]) {
          if (out.length >= limit) return out;
          out.push({ ...p, [names[i]]: a, [names[j]]: b });
        }
  return out;
}
