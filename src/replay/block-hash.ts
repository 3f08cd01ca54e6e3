// Integer block hashes for prefix caching and router overlap. A block's hash chains the previous
// block's hash with the block's content id, so equal hashes mean equal prefixes (vLLM semantics).
// Hashes are 53-bit safe integers (two 32-bit lanes) so millions of blocks stay collision-free.

const LANE = 2097152; // 2^21

function mix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Content id of a token run: folds up to three integers into one 32-bit value. */
export function contentId(a: number, b: number, c = 0): number {
  let h = mix32((a | 0) ^ 0x27d4eb2f);
  h = mix32(h ^ Math.imul(b | 0, 0x165667b1));
  h = mix32(h ^ Math.imul((c | 0) + 0x3c6ef372, 0x9e3779b1));
  // Values above 2^32 (interned trace ids can be large) also feed their high part.
  const ah = Math.floor(a / 4294967296);
  return ah === 0 ? h : mix32(h ^ Math.imul(ah | 0, 0x2545f491));
}

/** Chains a parent block hash (0 for the first block) with a content id. */
export function chainHash(parent: number, content: number): number {
  const pLo = parent % 4294967296 >>> 0;
  const pHi = Math.floor(parent / 4294967296);
  const hi = mix32(mix32(pHi ^ 0x68e31da4) ^ content ^ Math.imul(pLo, 0x1b873593));
  const lo = mix32(mix32(pLo ^ 0xb5297a4d) ^ Math.imul(content, 0xcc9e2d51) ^ pHi);
  return (hi & (LANE - 1)) * 4294967296 + lo + 1; // +1: never 0, which means "no parent"
}
