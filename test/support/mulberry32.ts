// The one small seeded PRNG that tests, benchmarks and example generators share (mulberry32): tiny,
// fast, deterministic across platforms. Production code has its own generators (src/replay/prng.ts,
// src/search/optimizer/prng.ts) whose streams must never shift with test code.
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
