// Dense symmetric positive-definite linear algebra on row-major Float64Arrays (n×n).
//
// The blocked kernels below change only which loads are shared, never the arithmetic: every entry is
// the same sequence of floating-point operations as the plain loops they replaced (kept as the
// specification in test/search/optimizer/blocked-kernels.test.ts), so results are bit-identical and
// the optimizer asks the same points as before.

/**
 * Cholesky factor: returns lower-triangular L with A = L Lᵀ, or null if A is not positive definite.
 * Reads only the lower triangle of A. Row-oriented, four rows at a time: four entries of each row
 * share every load of L_ik, and the four rows share every load of L_jk (16 updates per 8 loads in the
 * O(n³) loop instead of 4 per 5).
 */
export function cholesky(a: Float64Array, n: number): Float64Array | null {
  const l = new Float64Array(n * n);
  let i = 0;
  for (; i + 4 <= n; i += 4) if (!factorFourRows(a, l, n, i)) return null;
  for (; i < n; i++) if (!factorRowFrom(a, l, n, i, 0)) return null;
  return l;
}

// The kernels' loop bodies are functions called many times, not one long loop: V8 then optimizes
// them whole, instead of on-stack mid-loop (code that bailed out at the first unvisited statement).

/** Rows i … i + 3 of L; false if a pivot is not positive. */
function factorFourRows(a: Float64Array, l: Float64Array, n: number, i: number): boolean {
  const ra = i * n;
  const rb = ra + n;
  const rc = rb + n;
  const rd = rc + n;
  // Blocks of four columns that all four rows have (j + 4 ≤ i).
  let j = 0;
  for (; j + 4 <= i; j += 4) {
    const r0 = j * n;
    const r1 = r0 + n;
    const r2 = r1 + n;
    const r3 = r2 + n;
    let a0 = a[ra + j];
    let a1 = a[ra + j + 1];
    let a2 = a[ra + j + 2];
    let a3 = a[ra + j + 3];
    let b0 = a[rb + j];
    let b1 = a[rb + j + 1];
    let b2 = a[rb + j + 2];
    let b3 = a[rb + j + 3];
    let c0 = a[rc + j];
    let c1 = a[rc + j + 1];
    let c2 = a[rc + j + 2];
    let c3 = a[rc + j + 3];
    let d0 = a[rd + j];
    let d1 = a[rd + j + 1];
    let d2 = a[rd + j + 2];
    let d3 = a[rd + j + 3];
    for (let k = 0; k < j; k++) {
      const x0 = l[r0 + k];
      const x1 = l[r1 + k];
      const x2 = l[r2 + k];
      const x3 = l[r3 + k];
      const la = l[ra + k];
      const lb = l[rb + k];
      const lc = l[rc + k];
      const ld = l[rd + k];
      a0 -= la * x0;
      a1 -= la * x1;
      a2 -= la * x2;
      a3 -= la * x3;
      b0 -= lb * x0;
      b1 -= lb * x1;
      b2 -= lb * x2;
      b3 -= lb * x3;
      c0 -= lc * x0;
      c1 -= lc * x1;
      c2 -= lc * x2;
      c3 -= lc * x3;
      d0 -= ld * x0;
      d1 -= ld * x1;
      d2 -= ld * x2;
      d3 -= ld * x3;
    }
    blockTail(l, n, ra, j, a0, a1, a2, a3);
    blockTail(l, n, rb, j, b0, b1, b2, b3);
    blockTail(l, n, rc, j, c0, c1, c2, c3);
    blockTail(l, n, rd, j, d0, d1, d2, d3);
  }
  // Each row's remaining columns in row order: row i + r needs the diagonals of the rows above.
  return factorRowFrom(a, l, n, i, j) && factorRowFrom(a, l, n, i + 1, j) && factorRowFrom(a, l, n, i + 2, j) && factorRowFrom(a, l, n, i + 3, j);
}

/** Triangular tail inside a block of four columns j..j+3 of row `ri` (sums over k < j done). */
function blockTail(l: Float64Array, n: number, ri: number, j: number, s0: number, s1: number, s2: number, s3: number): void {
  const r0 = j * n;
  const r1 = r0 + n;
  const r2 = r1 + n;
  const r3 = r2 + n;
  const l0 = s0 / l[r0 + j];
  l[ri + j] = l0;
  s1 -= l0 * l[r1 + j];
  const l1 = s1 / l[r1 + j + 1];
  l[ri + j + 1] = l1;
  s2 -= l0 * l[r2 + j] + l1 * l[r2 + j + 1];
  const l2 = s2 / l[r2 + j + 2];
  l[ri + j + 2] = l2;
  s3 -= l0 * l[r3 + j] + l1 * l[r3 + j + 1] + l2 * l[r3 + j + 2];
  l[ri + j + 3] = s3 / l[r3 + j + 3];
}

/**
 * Row i of L from column j0 (a multiple of 4) on: blocks of four columns, single columns, then the
 * diagonal. False if the pivot is not positive.
 */
function factorRowFrom(a: Float64Array, l: Float64Array, n: number, i: number, j0: number): boolean {
  const ri = i * n;
  let j = j0;
  for (; j + 4 <= i; j += 4) {
    const r0 = j * n;
    const r1 = r0 + n;
    const r2 = r1 + n;
    const r3 = r2 + n;
    let s0 = a[ri + j];
    let s1 = a[ri + j + 1];
    let s2 = a[ri + j + 2];
    let s3 = a[ri + j + 3];
    for (let k = 0; k < j; k++) {
      const lik = l[ri + k];
      s0 -= lik * l[r0 + k];
      s1 -= lik * l[r1 + k];
      s2 -= lik * l[r2 + k];
      s3 -= lik * l[r3 + k];
    }
    blockTail(l, n, ri, j, s0, s1, s2, s3);
  }
  for (; j < i; j++) {
    const rj = j * n;
    let s = a[ri + j];
    for (let k = 0; k < j; k++) s -= l[ri + k] * l[rj + k];
    l[ri + j] = s / l[rj + j];
  }
  let d = a[ri + i];
  for (let k = 0; k < i; k++) d -= l[ri + k] * l[ri + k];
  if (!(d > 0)) return false;
  l[ri + i] = Math.sqrt(d);
  return true;
}

/**
 * Solves L x = b (forward substitution); writes into `out`. Four rows at a time: their sums over the
 * solved entries are independent, so four dependency chains run side by side instead of one (a single
 * right-hand side is otherwise latency-bound); each row's sum still runs over k in order.
 */
export function solveLower(l: Float64Array, n: number, b: ArrayLike<number>, out: Float64Array): Float64Array {
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const r0 = i * n;
    const r1 = r0 + n;
    const r2 = r1 + n;
    const r3 = r2 + n;
    let s0 = b[i];
    let s1 = b[i + 1];
    let s2 = b[i + 2];
    let s3 = b[i + 3];
    for (let k = 0; k < i; k++) {
      const ok = out[k];
      s0 -= l[r0 + k] * ok;
      s1 -= l[r1 + k] * ok;
      s2 -= l[r2 + k] * ok;
      s3 -= l[r3 + k] * ok;
    }
    const o0 = s0 / l[r0 + i];
    out[i] = o0;
    s1 -= l[r1 + i] * o0;
    const o1 = s1 / l[r1 + i + 1];
    out[i + 1] = o1;
    s2 -= l[r2 + i] * o0;
    s2 -= l[r2 + i + 1] * o1;
    const o2 = s2 / l[r2 + i + 2];
    out[i + 2] = o2;
    s3 -= l[r3 + i] * o0;
    s3 -= l[r3 + i + 1] * o1;
    s3 -= l[r3 + i + 2] * o2;
    out[i + 3] = s3 / l[r3 + i + 3];
  }
  for (; i < n; i++) {
    const ri = i * n;
    let s = b[i];
    for (let k = 0; k < i; k++) s -= l[ri + k] * out[k];
    out[i] = s / l[ri + i];
  }
  return out;
}

/**
 * Solves L X = B in place for `count` right-hand sides stored as the rows of `b` (row-major count×n):
 * the candidates' whitening V = L⁻¹k(X, C), the acquisition's O(C·n²) core. Four right-hand sides at
 * a time are copied into an interleaved block (row k's four values side by side) and four rows of L are
 * eliminated together, so each load feeds four updates (16 per 8 loads). Per right-hand side the sums
 * run over k in order as in `solveLower`; the quotient is taken as ·(1/L_ii) inside blocks of four and
 * as /L_ii for the last count mod 4, as the kernel this one replaced did: asks stay bit-identical.
 */
export function solveLowerRows(l: Float64Array, n: number, b: Float64Array, count: number): void {
  const blk = new Float64Array(4 * n);
  let q = 0;
  for (; q + 4 <= count; q += 4) {
    const r0 = q * n;
    for (let k = 0, o = r0; k < n; k++, o++) {
      blk[4 * k] = b[o];
      blk[4 * k + 1] = b[o + n];
      blk[4 * k + 2] = b[o + 2 * n];
      blk[4 * k + 3] = b[o + 3 * n];
    }
    solveBlock(l, n, blk);
    for (let k = 0, o = r0; k < n; k++, o++) {
      b[o] = blk[4 * k];
      b[o + n] = blk[4 * k + 1];
      b[o + 2 * n] = blk[4 * k + 2];
      b[o + 3 * n] = blk[4 * k + 3];
    }
  }
  for (; q < count; q++) {
    const r0 = q * n;
    for (let i = 0; i < n; i++) {
      const li = i * n;
      let s = b[r0 + i];
      for (let k = 0; k < i; k++) s -= l[li + k] * b[r0 + k];
      b[r0 + i] = s / l[li + i];
    }
  }
}

/** Forward substitution on one interleaved block of four right-hand sides (blk[4k + q]), in place. */
function solveBlock(l: Float64Array, n: number, blk: Float64Array): void {
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const l0 = i * n;
    const l1 = l0 + n;
    const l2 = l1 + n;
    const l3 = l2 + n;
    const bi = 4 * i;
    // Row i: a, i + 1: c, i + 2: e, i + 3: g; one variable per right-hand side.
    let a0 = blk[bi];
    let a1 = blk[bi + 1];
    let a2 = blk[bi + 2];
    let a3 = blk[bi + 3];
    let c0 = blk[bi + 4];
    let c1 = blk[bi + 5];
    let c2 = blk[bi + 6];
    let c3 = blk[bi + 7];
    let e0 = blk[bi + 8];
    let e1 = blk[bi + 9];
    let e2 = blk[bi + 10];
    let e3 = blk[bi + 11];
    let g0 = blk[bi + 12];
    let g1 = blk[bi + 13];
    let g2 = blk[bi + 14];
    let g3 = blk[bi + 15];
    for (let k = 0, bk = 0; k < i; k++, bk += 4) {
      const x = l[l0 + k];
      const y = l[l1 + k];
      const z = l[l2 + k];
      const w = l[l3 + k];
      const v0 = blk[bk];
      const v1 = blk[bk + 1];
      const v2 = blk[bk + 2];
      const v3 = blk[bk + 3];
      a0 -= x * v0;
      a1 -= x * v1;
      a2 -= x * v2;
      a3 -= x * v3;
      c0 -= y * v0;
      c1 -= y * v1;
      c2 -= y * v2;
      c3 -= y * v3;
      e0 -= z * v0;
      e1 -= z * v1;
      e2 -= z * v2;
      e3 -= z * v3;
      g0 -= w * v0;
      g1 -= w * v1;
      g2 -= w * v2;
      g3 -= w * v3;
    }
    // The triangle inside the block: each row's last terms (k = i, i + 1, i + 2) in order.
    let inv = 1 / l[l0 + i];
    a0 *= inv;
    a1 *= inv;
    a2 *= inv;
    a3 *= inv;
    let t = l[l1 + i];
    inv = 1 / l[l1 + i + 1];
    c0 = (c0 - t * a0) * inv;
    c1 = (c1 - t * a1) * inv;
    c2 = (c2 - t * a2) * inv;
    c3 = (c3 - t * a3) * inv;
    t = l[l2 + i];
    e0 -= t * a0;
    e1 -= t * a1;
    e2 -= t * a2;
    e3 -= t * a3;
    t = l[l2 + i + 1];
    inv = 1 / l[l2 + i + 2];
    e0 = (e0 - t * c0) * inv;
    e1 = (e1 - t * c1) * inv;
    e2 = (e2 - t * c2) * inv;
    e3 = (e3 - t * c3) * inv;
    t = l[l3 + i];
    g0 -= t * a0;
    g1 -= t * a1;
    g2 -= t * a2;
    g3 -= t * a3;
    t = l[l3 + i + 1];
    g0 -= t * c0;
    g1 -= t * c1;
    g2 -= t * c2;
    g3 -= t * c3;
    t = l[l3 + i + 2];
    inv = 1 / l[l3 + i + 3];
    g0 = (g0 - t * e0) * inv;
    g1 = (g1 - t * e1) * inv;
    g2 = (g2 - t * e2) * inv;
    g3 = (g3 - t * e3) * inv;
    blk[bi] = a0;
    blk[bi + 1] = a1;
    blk[bi + 2] = a2;
    blk[bi + 3] = a3;
    blk[bi + 4] = c0;
    blk[bi + 5] = c1;
    blk[bi + 6] = c2;
    blk[bi + 7] = c3;
    blk[bi + 8] = e0;
    blk[bi + 9] = e1;
    blk[bi + 10] = e2;
    blk[bi + 11] = e3;
    blk[bi + 12] = g0;
    blk[bi + 13] = g1;
    blk[bi + 14] = g2;
    blk[bi + 15] = g3;
  }
  for (; i < n; i++) {
    const li = i * n;
    const bi = 4 * i;
    let a0 = blk[bi];
    let a1 = blk[bi + 1];
    let a2 = blk[bi + 2];
    let a3 = blk[bi + 3];
    for (let k = 0, bk = 0; k < i; k++, bk += 4) {
      const x = l[li + k];
      a0 -= x * blk[bk];
      a1 -= x * blk[bk + 1];
      a2 -= x * blk[bk + 2];
      a3 -= x * blk[bk + 3];
    }
    const inv = 1 / l[li + i];
    blk[bi] = a0 * inv;
    blk[bi + 1] = a1 * inv;
    blk[bi + 2] = a2 * inv;
    blk[bi + 3] = a3 * inv;
  }
}

/** Solves Lᵀ x = b (back substitution). */
export function solveUpper(l: Float64Array, n: number, b: ArrayLike<number>, out: Float64Array): Float64Array {
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i];
    for (let k = i + 1; k < n; k++) s -= l[k * n + i] * out[k];
    out[i] = s / l[i * n + i];
  }
  return out;
}

/** A⁻¹ from its Cholesky factor (needed for the marginal-likelihood gradient). */
export function inverseFromCholesky(l: Float64Array, n: number): Float64Array {
  // M = L⁻¹ is stored transposed (mt[j·n + k] = M_kj, upper triangular) so that both passes are
  // contiguous dot products, two rows by four columns at a time sharing the loads:
  //   M_ij = (δ_ij − Σ_{k=j}^{i−1} L_ik M_kj) · (1/L_ii),   (A⁻¹)_ij = Σ_{k≥i} M_ki M_kj  (j ≤ i).
  // Each sum runs over k in ascending order from +0, as the outer-product loops this replaced did;
  // the terms they skipped, and those a block adds below a column's start, are exact zeros, which
  // leave such a sum unchanged: bit-identical results.
  const mt = new Float64Array(n * n);
  let i = 0;
  for (; i + 2 <= n; i += 2) {
    const ri = i * n;
    const rh = ri + n;
    const inv = 1 / l[ri + i];
    const invH = 1 / l[rh + i + 1];
    const lhi = l[rh + i];
    let j = 0;
    for (; j + 4 <= i; j += 4) {
      const r0 = j * n;
      const r1 = r0 + n;
      const r2 = r1 + n;
      const r3 = r2 + n;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let t0 = 0;
      let t1 = 0;
      let t2 = 0;
      let t3 = 0;
      for (let k = j; k < i; k++) {
        const lik = l[ri + k];
        const lhk = l[rh + k];
        const m0 = mt[r0 + k];
        const m1 = mt[r1 + k];
        const m2 = mt[r2 + k];
        const m3 = mt[r3 + k];
        s0 -= lik * m0;
        s1 -= lik * m1;
        s2 -= lik * m2;
        s3 -= lik * m3;
        t0 -= lhk * m0;
        t1 -= lhk * m1;
        t2 -= lhk * m2;
        t3 -= lhk * m3;
      }
      // Row i + 1's last term (k = i) uses row i's result.
      s0 *= inv;
      s1 *= inv;
      s2 *= inv;
      s3 *= inv;
      mt[r0 + i] = s0;
      mt[r1 + i] = s1;
      mt[r2 + i] = s2;
      mt[r3 + i] = s3;
      mt[r0 + i + 1] = (t0 - lhi * s0) * invH;
      mt[r1 + i + 1] = (t1 - lhi * s1) * invH;
      mt[r2 + i + 1] = (t2 - lhi * s2) * invH;
      mt[r3 + i + 1] = (t3 - lhi * s3) * invH;
    }
    for (; j < i; j++) {
      const rj = j * n;
      let s = 0;
      let t = 0;
      for (let k = j; k < i; k++) {
        const m = mt[rj + k];
        s -= l[ri + k] * m;
        t -= l[rh + k] * m;
      }
      s *= inv;
      mt[rj + i] = s;
      mt[rj + i + 1] = (t - lhi * s) * invH;
    }
    mt[ri + i] = inv; // δ_ii = 1, no terms
    mt[ri + i + 1] = (0 - lhi * inv) * invH;
    mt[rh + i + 1] = invH;
  }
  if (i < n) {
    const ri = i * n;
    const inv = 1 / l[ri + i];
    for (let j = 0; j < i; j++) {
      const rj = j * n;
      let s = 0;
      for (let k = j; k < i; k++) s -= l[ri + k] * mt[rj + k];
      mt[rj + i] = s * inv;
    }
    mt[ri + i] = inv;
  }
  const out = new Float64Array(n * n);
  i = 0;
  for (; i + 2 <= n; i += 2) {
    const ri = i * n;
    const rh = ri + n;
    let j = 0;
    for (; j + 4 <= i + 1; j += 4) {
      const r0 = j * n;
      const r1 = r0 + n;
      const r2 = r1 + n;
      const r3 = r2 + n;
      // Row i's first term (k = i) is its own; from k = i + 1 on both rows share the loads.
      const mii = mt[ri + i];
      let s0 = 0 + mii * mt[r0 + i];
      let s1 = 0 + mii * mt[r1 + i];
      let s2 = 0 + mii * mt[r2 + i];
      let s3 = 0 + mii * mt[r3 + i];
      let t0 = 0;
      let t1 = 0;
      let t2 = 0;
      let t3 = 0;
      for (let k = i + 1; k < n; k++) {
        const a = mt[ri + k];
        const b = mt[rh + k];
        const m0 = mt[r0 + k];
        const m1 = mt[r1 + k];
        const m2 = mt[r2 + k];
        const m3 = mt[r3 + k];
        s0 += a * m0;
        s1 += a * m1;
        s2 += a * m2;
        s3 += a * m3;
        t0 += b * m0;
        t1 += b * m1;
        t2 += b * m2;
        t3 += b * m3;
      }
      out[ri + j] = s0;
      out[ri + j + 1] = s1;
      out[ri + j + 2] = s2;
      out[ri + j + 3] = s3;
      out[rh + j] = t0;
      out[rh + j + 1] = t1;
      out[rh + j + 2] = t2;
      out[rh + j + 3] = t3;
    }
    for (; j <= i; j++) {
      const rj = j * n;
      let s = 0 + mt[ri + i] * mt[rj + i];
      let t = 0;
      for (let k = i + 1; k < n; k++) {
        const m = mt[rj + k];
        s += mt[ri + k] * m;
        t += mt[rh + k] * m;
      }
      out[ri + j] = s;
      out[rh + j] = t;
    }
    // Column i + 1 of row i + 1 (the diagonal).
    let t = 0;
    for (let k = i + 1; k < n; k++) t += mt[rh + k] * mt[rh + k];
    out[rh + i + 1] = t;
  }
  if (i < n) {
    const ri = i * n;
    for (let j = 0; j <= i; j++) {
      const rj = j * n;
      let s = 0;
      for (let k = i; k < n; k++) s += mt[ri + k] * mt[rj + k];
      out[ri + j] = s;
    }
  }
  for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) out[j * n + i] = out[i * n + j];
  return out;
}

/**
 * M·v for a row-major rows×cols matrix M: four rows at a time share each load of v and keep four
 * independent sums in flight, each still summed in column order (so results equal the plain loop's).
 */
export function matVec(m: Float64Array, rows: number, cols: number, v: Float64Array): Float64Array {
  const out = new Float64Array(rows);
  let r = 0;
  for (; r + 4 <= rows; r += 4) {
    const o0 = r * cols;
    const o1 = o0 + cols;
    const o2 = o1 + cols;
    const o3 = o2 + cols;
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    for (let j = 0; j < cols; j++) {
      const vj = v[j];
      a0 += m[o0 + j] * vj;
      a1 += m[o1 + j] * vj;
      a2 += m[o2 + j] * vj;
      a3 += m[o3 + j] * vj;
    }
    out[r] = a0;
    out[r + 1] = a1;
    out[r + 2] = a2;
    out[r + 3] = a3;
  }
  for (; r < rows; r++) {
    const off = r * cols;
    let acc = 0;
    for (let j = 0; j < cols; j++) acc += m[off + j] * v[j];
    out[r] = acc;
  }
  return out;
}
