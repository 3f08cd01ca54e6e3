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
 * The next scrambled-Halton design point not in `seen`; advances `cursor.index` past every index it
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
    const p = codec.fromUnitCube(halton.point(cursor.index++));
    if (!seen.has(pointKey(codec.space, p))) return p;
  }
  return uniformUnseen(codec, rng, seen);
}
