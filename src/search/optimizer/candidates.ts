// The deterministic candidate set the acquisition is maximized over: every unseen point of a small
// finite space; otherwise a mix of uniform samples, scrambled-Halton points and local perturbations
// of the best points (the "anchors"), which is where a GP-UCB maximum usually sits.
import type { ScrambledHalton } from './halton.js';
import type { Prng } from './prng.js';
import { finiteSize, pointKey, type Point, type SpaceCodec } from './space.js';
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
}

/** Perturbation radii in unit space, cycled per anchor: fine, medium and coarse moves. */
const RADII = [0.02, 0.06, 0.15, 0.3];

export function generateCandidates(req: CandidateRequest): { points: Point[]; haltonUsed: number } {
  const { codec, rng, exclude, budget } = req;
  const space = codec.space;
  const size = finiteSize(space);
  if (size <= budget) {
    return { points: enumerateSpace(space).filter((p) => !exclude.has(pointKey(space, p))), haltonUsed: 0 };
  }
  const keys = new Set<string>();
  const points: Point[] = [];
  const add = (p: Point): void => {
    const k = pointKey(space, p);
    if (exclude.has(k) || keys.has(k)) return;
    keys.add(k);
    points.push(p);
  };
  const nLocal = req.anchors.length > 0 ? Math.floor(budget * 0.5) : 0;
  const nHalton = Math.floor((budget - nLocal) / 2);
  let h = 0;
  for (; h < nHalton; h++) add(codec.fromUnitCube(req.halton.point(req.haltonStart + h)));
  for (let k = 0; k < nLocal; k++) {
    const anchor = req.anchors[k % req.anchors.length];
    add(codec.perturb(anchor, RADII[Math.floor(k / req.anchors.length) % RADII.length], rng));
  }
  // Uniform fill (also makes up for duplicates the other generators produced in discrete spaces).
  for (let tries = 0; points.length < budget && tries < budget * 4; tries++) add(codec.sampleUniform(rng));
  return { points, haltonUsed: h };
}
