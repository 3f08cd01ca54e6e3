// Seeded PRNG for workflow code: no Math.random, and the whole state is four uint32s so it can be
// serialized into OptimizerState and resumed bit-exactly after a Temporal replay / continue-as-new.
// Algorithm: sfc32 (Chris Doty-Humphrey's Small Fast Counting generator), seeded via splitmix32.

export type PrngState = [number, number, number, number];

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  private constructor(s: PrngState) {
    [this.a, this.b, this.c, this.d] = s;
  }

  static fromSeed(seed: number): Prng {
    // splitmix32 expands one 32-bit seed into four well-mixed words.
    let x = seed >>> 0;
    const next = (): number => {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    const p = new Prng([next(), next(), next(), 1]);
    for (let i = 0; i < 12; i++) p.nextUint32(); // discard warm-up outputs, as sfc32 recommends
    return p;
  }

  static fromState(s: PrngState): Prng {
    return new Prng([s[0] >>> 0, s[1] >>> 0, s[2] >>> 0, s[3] >>> 0]);
  }

  state(): PrngState {
    return [this.a, this.b, this.c, this.d];
  }

  nextUint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** Uniform in [0, 1) with 32 bits of resolution. */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Standard normal via Box–Muller (one value per call; simplicity over speed). */
  normal(): number {
    const u = 1 - this.next(); // (0, 1]
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Fisher–Yates permutation of 0..n-1. */
  permutation(n: number): number[] {
    const p = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }
}
