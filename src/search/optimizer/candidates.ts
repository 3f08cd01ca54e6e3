// The deterministic candidate set the acquisition is maximized over: every unseen point of a small
// finite space; otherwise a mix of uniform samples, scrambled-Halton points and local perturbations
// of the best points (the "anchors"), which is where a GP-UCB maximum usually sits.
import type { ScrambledHalton } from './halton.js';
import type { Prng } from './prng.js';
import { finiteSize, pointKey, type Point, type SpaceCodec } from './space.js';
import { coordinateNeighbourhood } from './neighbourhood.js';
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
}

/** Continuous-coordinate distance (unit space, per dimension) under which a candidate counts as near. */
export const NEAR_RADIUS = 0.05;

/** Finite-dimension key → continuous unit coordinates of the `near` points sharing it. */
function nearIndex(codec: SpaceCodec, near: readonly Point[]): { test: (p: Point) => boolean } {
  const space = codec.space;
  const finite = space.filter((d) => d.kind !== 'continuous');
  const continuous = space.map((d, i) => (d.kind === 'continuous' ? i : -1)).filter((i) => i >= 0);
  if (continuous.length === 0 || near.length === 0) return { test: () => false };
  const unit = (p: Point): Float64Array => {
    const x = codec.encode(p);
    return Float64Array.from(continuous, (i) => x[codec.featureOffset(i)]);
  };
  const index = new Map<string, Float64Array[]>();
  for (const p of near) {
    const k = pointKey(finite, p);
    const list = index.get(k);
    if (list) list.push(unit(p));
    else index.set(k, [unit(p)]);
  }
  return {
    test(p) {
      const list = index.get(pointKey(finite, p));
      if (!list) return false;
      const u = unit(p);
      return list.some((v) => v.every((c, j) => Math.abs(c - u[j]) < NEAR_RADIUS));
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

export function generateCandidates(req: CandidateRequest): { points: Point[]; haltonUsed: number } {
  const { codec, rng, exclude, budget } = req;
  const space = codec.space;
  const size = finiteSize(space);
  if (size <= budget) {
    return { points: enumerateSpace(space).filter((p) => !exclude.has(pointKey(space, p))), haltonUsed: 0 };
  }
  const keys = new Set<string>();
  const points: Point[] = [];
  const near = nearIndex(codec, req.near ?? []);
  const add = (p: Point): void => {
    const k = pointKey(space, p);
    if (exclude.has(k) || keys.has(k) || near.test(p)) return;
    keys.add(k);
    points.push(p);
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
  return { points, haltonUsed: h };
}
