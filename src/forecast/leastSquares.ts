// Small dense (ridge-regularized) least squares via the normal equations and a Cholesky factor.
// The forecasters fit at most ~15 coefficients, so normal equations are accurate enough and cheap.

/** Gram matrix XᵀX + diag(penalty) of a row-major n×k design (k×k, row-major). */
export function gram(X: Float64Array, n: number, k: number, penalty?: ArrayLike<number>): Float64Array {
  const A = new Float64Array(k * k);
  for (let r = 0; r < n; r++) {
    const o = r * k;
    for (let i = 0; i < k; i++) {
      const xi = X[o + i];
      if (xi === 0) continue;
      for (let j = 0; j <= i; j++) A[i * k + j] += xi * X[o + j];
    }
  }
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < i; j++) A[j * k + i] = A[i * k + j];
    if (penalty) A[i * k + i] += penalty[i];
  }
  return A;
}

/** Xᵀy for a row-major n×k design. */
export function crossProduct(X: Float64Array, y: ArrayLike<number>, n: number, k: number): Float64Array {
  const b = new Float64Array(k);
  for (let r = 0; r < n; r++) {
    const o = r * k;
    const yr = y[r];
    for (let i = 0; i < k; i++) b[i] += X[o + i] * yr;
  }
  return b;
}

/**
 * Lower Cholesky factor of a symmetric k×k matrix, or null when it is not (numerically) positive
 * definite — callers treat that as a degenerate design and fall back.
 */
export function cholesky(A: Float64Array, k: number): Float64Array | null {
  const L = new Float64Array(k * k);
  let maxDiag = 0;
  for (let i = 0; i < k; i++) maxDiag = Math.max(maxDiag, Math.abs(A[i * k + i]));
  const tol = Math.max(maxDiag, 1e-300) * 1e-12;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j <= i; j++) {
      let s = A[i * k + j];
      for (let m = 0; m < j; m++) s -= L[i * k + m] * L[j * k + m];
      if (i === j) {
        if (!(s > tol)) return null;
        L[i * k + i] = Math.sqrt(s);
      } else {
        L[i * k + j] = s / L[j * k + j];
      }
    }
  }
  return L;
}

/** Solve (L Lᵀ) x = b. */
export function choleskySolve(L: Float64Array, b: ArrayLike<number>, k: number): Float64Array {
  const x = new Float64Array(k);
  for (let i = 0; i < k; i++) {
    let s = b[i];
    for (let m = 0; m < i; m++) s -= L[i * k + m] * x[m];
    x[i] = s / L[i * k + i];
  }
  for (let i = k - 1; i >= 0; i--) {
    let s = x[i];
    for (let m = i + 1; m < k; m++) s -= L[m * k + i] * x[m];
    x[i] = s / L[i * k + i];
  }
  return x;
}
