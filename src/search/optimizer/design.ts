// Space-filling and uniform proposals that avoid points already observed or pending.
import type { ScrambledHalton } from './halton.js';
import type { Prng } from './prng.js';
import { finiteSize, pointKey, type Point, type SpaceCodec } from './space.js';
import { enumerateSpace } from './thorough.js';

/** Finite spaces up to this size are enumerated when rejection sampling keeps hitting seen points. */
const ENUMERATE_UNSEEN_LIMIT = 1_000_000;
const REJECTION_TRIES = 64;

/** Whether a finite space has no point left that is neither observed nor pending. */
export function exhausted(codec: SpaceCodec, seen: ReadonlySet<string>): boolean {
  return seen.size >= finiteSize(codec.space);
}

/** A uniform point not in `seen`, or null if the (finite) space is exhausted. */
export function uniformUnseen(codec: SpaceCodec, rng: Prng, seen: ReadonlySet<string>): Point | null {
  if (exhausted(codec, seen)) return null;
  for (let t = 0; t < REJECTION_TRIES; t++) {
    const p = codec.sampleUniform(rng);
    if (!seen.has(pointKey(codec.space, p))) return p;
  }
  const size = finiteSize(codec.space);
  if (size > ENUMERATE_UNSEEN_LIMIT) return codec.sampleUniform(rng); // a vast space: a repeat is harmless
  const unseen = enumerateSpace(codec.space).filter((p) => !seen.has(pointKey(codec.space, p)));
  return unseen.length > 0 ? unseen[rng.int(unseen.length)] : null;
}

/**
 * Corners the design starts with: every numeric dimension at its lower, then its upper bound
 * (categoricals from the Halton point of the same index, so they still vary). Space-filling points
 * almost never land within a few percent of a bound, yet resource-ratio and engine-size optima
 * (fewest GPUs, smallest engines) sit exactly there.
 */
export const DESIGN_CORNERS = 2;

/** Design point `index`: the corners first, then the scrambled-Halton sequence. */
export function designPoint(codec: SpaceCodec, halton: ScrambledHalton, index: number): Point {
  if (index >= DESIGN_CORNERS) return codec.fromUnitCube(halton.point(index - DESIGN_CORNERS));
  const p = codec.fromUnitCube(halton.point(index));
  for (const d of codec.space) {
    if (d.kind === 'categorical') continue;
    const nums = d.values as number[];
    p[d.name] = index === 0 ? Math.min(...nums) : Math.max(...nums);
  }
  return p;
}

/**
 * The next design point (corners, then scrambled Halton) not in `seen`; advances `cursor.index` past every index it
 * consumes. Falls back to a uniform unseen point if the sequence keeps landing on seen points.
 */
export function haltonUnseen(
  codec: SpaceCodec,
  halton: ScrambledHalton,
  cursor: { index: number },
  rng: Prng,
  seen: ReadonlySet<string>,
): Point | null {
  if (exhausted(codec, seen)) return null;
  for (let t = 0; t < REJECTION_TRIES; t++) {
    const p = designPoint(codec, halton, cursor.index++);
    if (!seen.has(pointKey(codec.space, p))) return p;
  }
  return uniformUnseen(codec, rng, seen);
}
