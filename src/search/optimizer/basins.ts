// Projection basins: where an ask would most likely be mapped onto a point already evaluated.
//
// A caller that projects asks onto a discrete set (latent parallel features onto a legal config)
// tells the point it really evaluated (`observed`). Asks that land on an evaluated point again are
// pure repeats: they cost a trial and teach nothing. On the sweeper benchmark's MoE problems about
// half of a 192-trial run was such repeats, mostly small latent moves around the incumbent that the
// projection mapped straight back onto it.
//
// The projection picks the nearest legal point. An ask p that was mapped onto o at distance r says no
// legal point lies closer to p than r. A candidate c that keeps p's values on every dimension the
// projection never changed and on every categorical one, and whose numeric projected coordinates
// satisfy d(c, o) + d(c, p) < SLACK · r, sits inside that empty ball (SLACK 1 would be the exact
// triangle-inequality bound when the metric matched; the unit-space metric is only an approximation of
// the projection's per-backend one, so the test is a heuristic). With SLACK 1.5 it flagged ~75 % of the
// repeats of the MoE SLA problem's runs and ~3 % of the asks that found a new point.
import type { StoredTrial } from './optimizer.js';
import type { PointMemo } from './point-memo.js';
import { pointKey, type Dimension, type Point } from './space.js';

const SLACK = 1.5;

interface Basin {
  p: Float64Array;
  o: Float64Array;
  radius: number;
}

export interface BasinIndex {
  /** True when `c` most likely projects onto an evaluated point. */
  test(c: Point, encoded?: Float64Array): boolean;
}

const NONE: BasinIndex = { test: () => false };

/** The basins of the told trials whose evaluated point differs from the asked one. */
export function basinIndex(memo: PointMemo, trials: readonly StoredTrial[]): BasinIndex {
  const codec = memo.codec;
  const space = codec.space;
  const projected = new Set<number>();
  for (const t of trials) if (t.o) space.forEach((d, i) => t.o![d.name] !== t.p[d.name] && projected.add(i));
  const numeric = [...projected].filter((i) => space[i].kind !== 'categorical').map((i) => codec.featureOffset(i));
  if (numeric.length === 0) return NONE;
  const fixed: Dimension[] = space.filter((d, i) => !(projected.has(i) && d.kind !== 'categorical'));
  const byFixed = new Map<string, Basin[]>();
  const dist = (a: Float64Array, b: Float64Array): number => {
    let s = 0;
    for (const f of numeric) s += (a[f] - b[f]) ** 2;
    return Math.sqrt(s);
  };
  for (const t of trials) {
    if (!t.o) continue;
    const p = memo.encode(t.p);
    const o = memo.encode(t.o);
    const radius = dist(p, o);
    if (radius <= 0) continue;
    const key = pointKey(fixed, t.p);
    const list = byFixed.get(key);
    const basin = { p, o, radius };
    if (list) list.push(basin);
    else byFixed.set(key, [basin]);
  }
  if (byFixed.size === 0) return NONE;
  return {
    test(c, encoded) {
      const list = byFixed.get(pointKey(fixed, c));
      if (!list) return false;
      const e = encoded ?? codec.encode(c);
      return list.some((b) => dist(e, b.o) + dist(e, b.p) < SLACK * b.radius);
    },
  };
}
