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

  constructor(readonly dims: number, seed: number) {
    this.bases = firstPrimes(dims);
    const rng = Prng.fromSeed((seed ^ 0x5bd1e995) >>> 0);
    this.perms = this.bases.map((b) => rng.permutation(b));
  }

  /** The `index`-th point (index ≥ 0) in [0,1)^dims. */
  point(index: number): Float64Array {
    const out = new Float64Array(this.dims);
    for (let d = 0; d < this.dims; d++) {
      const b = this.bases[d];
      const perm = this.perms[d];
      let i = index + 1; // skip the all-zero-digit origin
      let f = 1 / b;
      let x = 0;
      // A fixed number of digits (enough for double precision) so scrambled trailing zeros count too.
      for (let k = 0; k < 40 && f > 1e-15; k++) {
        x += perm[i % b] * f;
        i = Math.floor(i / b);
        f /= b;
      }
      out[d] = Math.min(x, 1 - 1e-12);
    }
    return out;
  }
}
