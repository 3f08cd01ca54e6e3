// Dense symmetric positive-definite linear algebra on row-major Float64Arrays (n×n).

/**
 * Cholesky factor: returns lower-triangular L with A = L Lᵀ, or null if A is not positive definite.
 * Row-oriented; four entries of a row share each load of L_ik (the part all four sums have in
 * common), which roughly halves memory traffic in the O(n³) loop.
 */
export function cholesky(a: Float64Array, n: number): Float64Array | null {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    const ri = i * n;
    let j = 0;
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
      // Triangular tail inside the block of four.
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
    for (; j < i; j++) {
      const rj = j * n;
      let s = a[ri + j];
      for (let k = 0; k < j; k++) s -= l[ri + k] * l[rj + k];
      l[ri + j] = s / l[rj + j];
    }
    let d = a[ri + i];
    for (let k = 0; k < i; k++) d -= l[ri + k] * l[ri + k];
    if (!(d > 0)) return null;
    l[ri + i] = Math.sqrt(d);
  }
  return l;
}

/** Solves L x = b (forward substitution); writes into `out`. */
export function solveLower(l: Float64Array, n: number, b: ArrayLike<number>, out: Float64Array): Float64Array {
  for (let i = 0; i < n; i++) {
    const ri = i * n;
    let s = b[i];
    for (let k = 0; k < i; k++) s -= l[ri + k] * out[k];
    out[i] = s / l[ri + i];
  }
  return out;
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
  // M = L⁻¹ row by row (row i = (e_i − Σ_{k<i} L_ik M_k) / L_ii; rows are lower-triangular), then
  // A⁻¹ = Mᵀ M accumulated as outer products of M's rows. Both passes walk rows contiguously.
  const m = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    const ri = i * n;
    for (let k = 0; k < i; k++) {
      const lik = l[ri + k];
      if (lik === 0) continue;
      const rk = k * n;
      for (let j = 0; j <= k; j++) m[ri + j] -= lik * m[rk + j];
    }
    m[ri + i] += 1;
    const inv = 1 / l[ri + i];
    for (let j = 0; j <= i; j++) m[ri + j] *= inv;
  }
  const out = new Float64Array(n * n);
  for (let k = 0; k < n; k++) {
    const rk = k * n;
    for (let i = 0; i <= k; i++) {
      const mki = m[rk + i];
      if (mki === 0) continue;
      const ri = i * n;
      for (let j = 0; j <= i; j++) out[ri + j] += mki * m[rk + j];
    }
  }
  for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) out[j * n + i] = out[i * n + j];
  return out;
}
