import { describe, expect, it } from 'vitest';
import { cholesky, choleskySolve, crossProduct, gram } from '../../src/forecast/leastSquares.js';

describe('normal-equation least squares', () => {
  it('recovers exact coefficients of a linear model', () => {
    // y = 2 − 3·x1 + 0.5·x2 on 6 rows, design [1, x1, x2].
    const rows = [
      [1, 0, 1],
      [1, 1, 4],
      [1, 2, 9],
      [1, 3, 2],
      [1, 4, 7],
      [1, 5, 0],
    ];
    const X = Float64Array.from(rows.flat());
    const y = rows.map(([, a, b]) => 2 - 3 * a + 0.5 * b);
    const L = cholesky(gram(X, 6, 3), 3)!;
    const beta = choleskySolve(L, crossProduct(X, y, 6, 3), 3);
    expect(Array.from(beta).map((b) => Number(b.toFixed(9)))).toEqual([2, -3, 0.5]);
  });

  it('detects a singular design and makes it solvable with a ridge penalty', () => {
    // Second column duplicates the first.
    const X = Float64Array.from([1, 1, 1, 1, 1, 1]);
    expect(cholesky(gram(X, 3, 2), 2)).toBeNull();
    const L = cholesky(gram(X, 3, 2, [1e-3, 1e-3]), 2)!;
    const beta = choleskySolve(L, crossProduct(X, [4, 4, 4], 3, 2), 2);
    // Ridge splits the shared effect evenly.
    expect(beta[0]).toBeCloseTo(2, 3);
    expect(beta[1]).toBeCloseTo(2, 3);
  });
});
