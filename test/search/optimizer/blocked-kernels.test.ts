// The blocked linear-algebra kernels must return exactly (bit for bit) what the plain loops they
// replaced returned: the optimizer's asks are deterministic and recorded sweeps replay them, so a
// speedup may share loads but never reorder a floating-point sum. The plain loops are kept here as
// the specification.
import { describe, expect, it } from 'vitest';
import { cholesky, inverseFromCholesky, solveLower, solveLowerRows } from '../../../src/search/optimizer/cholesky.js';
import { Prng } from '../../../src/search/optimizer/prng.js';

/** The row-oriented factorization the optimizer used before (four entries of a row per load of L_ik). */
function plainCholesky(a: Float64Array, n: number): Float64Array | null {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    const ri = i * n;
    let j = 0;
    for (; j + 4 <= i; j += 4) {
      const [r0, r1, r2, r3] = [j * n, (j + 1) * n, (j + 2) * n, (j + 3) * n];
      let [s0, s1, s2, s3] = [a[ri + j], a[ri + j + 1], a[ri + j + 2], a[ri + j + 3]];
      for (let k = 0; k < j; k++) {
        s0 -= l[ri + k] * l[r0 + k];
        s1 -= l[ri + k] * l[r1 + k];
        s2 -= l[ri + k] * l[r2 + k];
        s3 -= l[ri + k] * l[r3 + k];
      }
      const l0 = s0 / l[r0 + j];
      s1 -= l0 * l[r1 + j];
      const l1 = s1 / l[r1 + j + 1];
      s2 -= l0 * l[r2 + j] + l1 * l[r2 + j + 1];
      const l2 = s2 / l[r2 + j + 2];
      s3 -= l0 * l[r3 + j] + l1 * l[r3 + j + 1] + l2 * l[r3 + j + 2];
      [l[ri + j], l[ri + j + 1], l[ri + j + 2], l[ri + j + 3]] = [l0, l1, l2, s3 / l[r3 + j + 3]];
    }
    for (; j < i; j++) {
      let s = a[ri + j];
      for (let k = 0; k < j; k++) s -= l[ri + k] * l[j * n + k];
      l[ri + j] = s / l[j * n + j];
    }
    let d = a[ri + i];
    for (let k = 0; k < i; k++) d -= l[ri + k] * l[ri + k];
    if (!(d > 0)) return null;
    l[ri + i] = Math.sqrt(d);
  }
  return l;
}

function plainSolveLower(l: Float64Array, n: number, b: ArrayLike<number>, reciprocal: boolean): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = b[i];
    for (let k = 0; k < i; k++) s -= l[i * n + k] * out[k];
    out[i] = reciprocal ? s * (1 / l[i * n + i]) : s / l[i * n + i];
  }
  return out;
}

/** L⁻¹ by rows, then Mᵀ M by outer products (the loops the optimizer used before). */
function plainInverse(l: Float64Array, n: number): Float64Array {
  const m = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < i; k++) for (let j = 0; j <= k; j++) m[i * n + j] -= l[i * n + k] * m[k * n + j];
    m[i * n + i] += 1;
    const inv = 1 / l[i * n + i];
    for (let j = 0; j <= i; j++) m[i * n + j] *= inv;
  }
  const out = new Float64Array(n * n);
  for (let k = 0; k < n; k++) for (let i = 0; i <= k; i++) for (let j = 0; j <= i; j++) out[i * n + j] += m[k * n + i] * m[k * n + j];
  for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) out[j * n + i] = out[i * n + j];
  return out;
}

/** A Matern-like SPD matrix on random points (length scale `scale`, jitter on the diagonal). */
function spd(n: number, rng: Prng, scale: number, jitter: number): Float64Array {
  const x = Array.from({ length: n }, () => [rng.next(), rng.next(), rng.next()]);
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) a[i * n + j] = Math.exp(-Math.hypot(x[i][0] - x[j][0], x[i][1] - x[j][1], x[i][2] - x[j][2]) / scale) + (i === j ? jitter : 0);
  return a;
}

const identical = (a: ArrayLike<number>, b: ArrayLike<number>) => a.length === b.length && Array.from(a).every((v, i) => Object.is(v, b[i]));
const SIZES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 16, 17, 31, 64, 67];

describe('blocked kernels are bit-identical to the plain loops', () => {
  it('cholesky (and null exactly when the plain loop gives up)', () => {
    const rng = Prng.fromSeed(7);
    for (const n of SIZES)
      for (const jitter of [1e-6, -1e-3]) {
        const a = spd(n, rng, 0.5, jitter);
        const want = plainCholesky(a, n);
        const got = cholesky(a, n);
        expect(got === null).toBe(want === null);
        if (want && got) expect(identical(got, want)).toBe(true);
      }
  });

  it('solveLower, solveLowerRows (·1/L_ii in blocks of four right-hand sides, /L_ii for the rest) and inverseFromCholesky', () => {
    const rng = Prng.fromSeed(8);
    for (const n of SIZES) {
      const l = plainCholesky(spd(n, rng, n > 30 ? 0.05 : 0.5, 1e-4), n)!;
      const b = Array.from({ length: n }, () => rng.normal());
      expect(identical(solveLower(l, n, b, new Float64Array(n)), plainSolveLower(l, n, b, false))).toBe(true);
      for (const count of [1, 4, 6, 9]) {
        const rows = Float64Array.from({ length: count * n }, () => rng.normal());
        const want = new Float64Array(count * n);
        for (let q = 0; q < count; q++) want.set(plainSolveLower(l, n, rows.subarray(q * n, (q + 1) * n), q < count - (count % 4)), q * n);
        solveLowerRows(l, n, rows, count);
        expect(identical(rows, want)).toBe(true);
      }
      expect(identical(inverseFromCholesky(l, n), plainInverse(l, n))).toBe(true);
    }
  });
});
