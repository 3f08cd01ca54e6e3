// Scrambled Halton sequence for the quasi-random initial design and the candidate set.
// Scrambling: one random digit permutation per dimension (Braaten–Weller style), derived from the
// seed alone, so only the sequence index has to live in OptimizerState. Digit 0 maps to a random
// digit too, which removes the zero-start and the strong early correlation of plain Halton.
import { Prng } from './prng.js';

function firstPrimes(n: number): number[] {
  const primes: number[] = [];
  for (let c = 2; primes.length < n; c++) if (primes.every((p) => c % p !== 0)) primes.push(c);
  return primes;
}

export class ScrambledHalton {
  private readonly bases: number[];
  private readonly perms: number[][];
  /**
   * Per dimension, the digit weights b⁻¹, b⁻², … (each the previous one divided by b, as the digit
   * loop used to compute them) down to the last one above 1e-15, at most 40: a serial chain of
   * divisions per coordinate that every point repeated.
   */
  private readonly weights: Float64Array[];

  constructor(readonly dims: number, seed: number) {
    this.bases = firstPrimes(dims);
    const rng = Prng.fromSeed((seed ^ 0x5bd1e995) >>> 0);
    this.perms = this.bases.map((b) => rng.permutation(b));
    this.weights = this.bases.map((b) => {
      const w: number[] = [];
      // A fixed number of digits (enough for double precision) so scrambled trailing zeros count too.
      for (let f = 1 / b; w.length < 40 && f > 1e-15; f /= b) w.push(f);
      return Float64Array.from(w);
    });
  }

  /** The `index`-th point (index ≥ 0) in [0,1)^dims. */
  point(index: number): Float64Array {
    const out = new Float64Array(this.dims);
    for (let d = 0; d < this.dims; d++) {
      const b = this.bases[d];
      const perm = this.perms[d];
      const w = this.weights[d];
      let i = index + 1; // skip the all-zero-digit origin
      let x = 0;
      let k = 0;
      for (; k < w.length && i > 0; k++) {
        x += perm[i % b] * w[k];
        i = Math.floor(i / b);
      }
      // Every further digit is 0, which the scrambling maps to perm[0].
      const zero = perm[0];
      for (; k < w.length; k++) x += zero * w[k];
      out[d] = Math.min(x, 1 - 1e-12);
    }
    return out;
  }
}
