// The deterministic candidate set the acquisition is maximized over: every unseen point of a small
// finite space; otherwise a mix of uniform samples, scrambled-Halton points and local perturbations
// of the best points (the "anchors"), which is where a GP-UCB maximum usually sits.
import type { ScrambledHalton } from './halton.js';
import type { Prng } from './prng.js';
import { finiteSize, pointKey, type Point, type SpaceCodec } from './space.js';
import { coordinateNeighbourhood } from './neighbourhood.js';
import { PointMemo } from './point-memo.js';
import type { BasinIndex } from './basins.js';
import { enumerateSpace } from './thorough.js';

export interface CandidateRequest {
  codec: SpaceCodec;
  rng: Prng;
  halton: ScrambledHalton;
  /** First Halton index to use; the caller advances its counter by `haltonUsed`. */
  haltonStart: number;
  budget: number;
  anchors: readonly Point[];
  /** Keys of observed and pending points: never proposed again. */
  exclude: ReadonlySet<string>;
  /**
   * Observed and pending points whose close neighbours are not proposed either: a candidate equal to
   * one of them on every finite dimension and within NEAR_RADIUS on every continuous one (unit space).
   * Such a point adds almost no information, and where the caller maps points onto a discrete set
   * (latent parallel features projected onto a legal config) it is usually the very same evaluation.
   */
  near?: readonly Point[];
  /** Keys and encodings of the (long-lived) `near` points, kept across asks by the caller. */
  memo?: PointMemo;
  /** Where an ask would most likely be projected onto an evaluated point: not proposed (see basins.ts). */
  basins?: BasinIndex;
}

/** Continuous-coordinate distance (unit space, per dimension) under which a candidate counts as near. */
export const NEAR_RADIUS = 0.05;

/** Finite-dimension key → the `near` points sharing it (their continuous coordinates are compared). */
function nearIndex(memo: PointMemo, near: readonly Point[]): { test: (p: Point) => boolean } {
  const codec = memo.codec;
  const offsets = codec.space.flatMap((d, i) => (d.kind === 'continuous' ? [codec.featureOffset(i)] : []));
  if (offsets.length === 0 || near.length === 0) return { test: () => false };
  const index = new Map<string, Point[]>();
  for (const p of near) {
    const k = memo.finiteKey(p);
    const list = index.get(k);
    if (list) list.push(p);
    else index.set(k, [p]);
  }
  // Candidates are fresh objects, looked at once: their keys are not memoized.
  const finite = codec.space.filter((d) => d.kind !== 'continuous');
  return {
    test(p) {
      const list = index.get(pointKey(finite, p));
      if (!list) return false;
      const u = codec.encode(p);
      return list.some((q) => {
        const v = memo.encode(q);
        return offsets.every((o) => Math.abs(v[o] - u[o]) < NEAR_RADIUS);
      });
    },
  };
}

/**
 * Local moves, cycled per anchor: neighbours changing 1–3 dimensions (so discrete and categorical
 * knobs really move) interleaved with Gaussian perturbations of every coordinate (fine to coarse).
 */
const LOCAL_MOVES: ({ changes: number } | { radius: number })[] = [
  { changes: 1 },
  { changes: 1 },
  { changes: 2 },
  { radius: 0.06 },
  { changes: 1 },
  { changes: 3 },
  { radius: 0.15 },
  { changes: 2 },
];

/** Share of the local-candidate budget spent on exhaustive coordinate neighbourhoods. */
const EXHAUSTIVE_SHARE = 0.6;

/** The candidates and their pointKeys (parallel arrays). */
export function generateCandidates(req: CandidateRequest): { points: Point[]; keys: string[]; haltonUsed: number } {
  const { codec, rng, exclude, budget } = req;
  const space = codec.space;
  const size = finiteSize(space);
  const points: Point[] = [];
  const keys: string[] = [];
  if (size <= budget) {
    for (const p of enumerateSpace(space)) {
      const k = pointKey(space, p);
      if (exclude.has(k) || req.basins?.test(p)) continue;
      points.push(p);
      keys.push(k);
    }
    return { points, keys, haltonUsed: 0 };
  }
  const taken = new Set<string>();
  const near = nearIndex(req.memo ?? new PointMemo(codec), req.near ?? []);
  const add = (p: Point): void => {
    const k = pointKey(space, p);
    if (exclude.has(k) || taken.has(k) || near.test(p) || req.basins?.test(p)) return;
    taken.add(k);
    points.push(p);
    keys.push(k);
  };
  const nLocal = req.anchors.length > 0 ? Math.floor(budget * 0.5) : 0;
  const nHalton = Math.floor((budget - nLocal) / 2);
  let h = 0;
  for (; h < nHalton; h++) add(codec.fromUnitCube(req.halton.point(req.haltonStart + h)));
  // Exhaustive coordinate neighbourhoods: every 1–2-coordinate change of the incumbent, every
  // single change of the other anchors (bounded by a share of the local budget).
  const exhaustiveCap = Math.floor(nLocal * EXHAUSTIVE_SHARE);
  const before = points.length;
  req.anchors.forEach((anchor, a) => {
    const room = exhaustiveCap - (points.length - before);
    if (room > 0) for (const q of coordinateNeighbourhood(codec, anchor, a === 0 ? 2 : 1, room)) add(q);
  });
  const exhaustive = points.length - before;
  for (let k = 0; k < nLocal - exhaustive; k++) {
    const anchor = req.anchors[k % req.anchors.length];
    const move = LOCAL_MOVES[Math.floor(k / req.anchors.length) % LOCAL_MOVES.length];
    add('changes' in move ? codec.neighbour(anchor, move.changes, rng) : codec.perturb(anchor, move.radius, rng));
  }
  // Uniform fill (also makes up for duplicates the other generators produced in discrete spaces).
  for (let tries = 0; points.length < budget && tries < budget * 4; tries++) add(codec.sampleUniform(rng));
  return { points, keys, haltonUsed: h };
}
