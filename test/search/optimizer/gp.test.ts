import { describe, expect, it } from 'vitest';
import { cholesky, inverseFromCholesky } from '../../../src/search/optimizer/cholesky.js';
import { FantasyBelief } from '../../../src/search/optimizer/fantasy.js';
import { GpPosterior, PairDistances, defaultHyper, fitHyper, logPosterior, matern52 } from '../../../src/search/optimizer/gp.js';
import { Prng } from '../../../src/search/optimizer/prng.js';

const oneFeaturePerDim = (d: number) => Int32Array.from({ length: d }, (_, i) => i);
const hyper = (lengthscales: number[], signal: number, noise: number) => [...lengthscales.map(Math.log), Math.log(signal), Math.log(noise)];

describe('linear algebra', () => {
  it('Cholesky reproduces A and its inverse is the inverse', () => {
    const n = 5;
    const rng = Prng.fromSeed(1);
    const b = Array.from({ length: n * n }, () => rng.normal());
    const a = new Float64Array(n * n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        let s = i === j ? 0.5 : 0;
        for (let k = 0; k < n; k++) s += b[i * n + k] * b[j * n + k];
        a[i * n + j] = s;
      }
    const l = cholesky(a, n)!;
    const inv = inverseFromCholesky(l, n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        let llt = 0;
        let eye = 0;
        for (let k = 0; k < n; k++) {
          llt += l[i * n + k] * l[j * n + k];
          eye += a[i * n + k] * inv[k * n + j];
        }
        expect(llt).toBeCloseTo(a[i * n + j], 10);
        expect(eye).toBeCloseTo(i === j ? 1 : 0, 10);
      }
    expect(cholesky(Float64Array.from([1, 2, 2, 1]), 2)).toBeNull();
  });

  it('Matern-5/2 is 1 at 0 and decreasing', () => {
    expect(matern52(0)).toBe(1);
    expect(matern52(0.5)).toBeLessThan(1);
    expect(matern52(2)).toBeLessThan(matern52(0.5));
  });
});

describe('GP posterior', () => {
  const xs = [0.1, 0.25, 0.4, 0.55].map((v) => Float64Array.of(v));
  const ys = [0.3, -0.7, 0.9, 0.1];
  const gp = new GpPosterior(xs, ys, oneFeaturePerDim(1), hyper([0.2], 1.5, 1e-8));

  it('interpolates noise-free observations with ≈0 variance there', () => {
    xs.forEach((x, i) => {
      const { mean, variance } = gp.predict(x);
      expect(mean).toBeCloseTo(ys[i], 5);
      expect(variance).toBeLessThan(1e-6);
    });
  });

  it('reverts to the prior (mean 0, variance = signal) far from the data', () => {
    const far = gp.predict(Float64Array.of(6));
    expect(far.mean).toBeCloseTo(0, 6);
    expect(far.variance).toBeCloseTo(1.5, 6);
    const between = gp.predict(Float64Array.of(0.475));
    expect(between.variance).toBeGreaterThan(1e-6);
    expect(between.variance).toBeLessThan(1.5);
  });

  it('fantasy conditioning equals refitting with the fantasy observed at the posterior mean', () => {
    const h = hyper([0.3, 0.5], 1.2, 1e-3);
    const rng = Prng.fromSeed(7);
    const pts = Array.from({ length: 12 }, () => Float64Array.of(rng.next(), rng.next()));
    const y = pts.map((p) => Math.sin(4 * p[0]) + p[1]);
    const base = new GpPosterior(pts, y, oneFeaturePerDim(2), h);
    const cands = Array.from({ length: 20 }, () => Float64Array.of(rng.next(), rng.next()));
    const belief = new FantasyBelief(base, cands);
    const f1 = cands[3];
    const f2 = Float64Array.of(0.9, 0.1); // not a candidate (a pending trial)
    belief.addFantasy(f1);
    belief.addFantasy(f2);
    const refit = new GpPosterior([...pts, f1, f2], [...y, base.mean(f1), base.mean(f2)], oneFeaturePerDim(2), h);
    cands.forEach((c, i) => {
      const r = refit.predict(c);
      expect(belief.variance[i]).toBeCloseTo(r.variance, 6);
      expect(belief.mean[i]).toBeCloseTo(r.mean, 6);
    });
    expect(belief.variance[3]).toBeLessThan(2e-3);
  });
});

describe('hyperparameter fit', () => {
  it('the analytic log-posterior gradient matches finite differences', () => {
    const rng = Prng.fromSeed(3);
    const featureDim = Int32Array.of(0, 0, 0, 1, 2); // a 3-way one-hot categorical + two numerics
    const x = Array.from({ length: 15 }, () => {
      const v = new Float64Array(5);
      v[rng.int(3)] = 1;
      v[3] = rng.next();
      v[4] = rng.next();
      return v;
    });
    const y = x.map((v) => v[0] + Math.sin(5 * v[3]) - v[4]);
    const dist = new PairDistances(x, featureDim, 3);
    const h = [Math.log(0.7), Math.log(0.3), Math.log(1.1), Math.log(0.9), Math.log(0.05)];
    const lp = logPosterior(dist, y, h)!;
    for (let i = 0; i < h.length; i++) {
      const eps = 1e-5;
      const up = logPosterior(dist, y, h.map((v, k) => (k === i ? v + eps : v)))!.value;
      const dn = logPosterior(dist, y, h.map((v, k) => (k === i ? v - eps : v)))!.value;
      expect(lp.gradient[i]).toBeCloseTo((up - dn) / (2 * eps), 4);
    }
  });

  it('recovers a shorter length scale on the fast-varying dimension', () => {
    const rng = Prng.fromSeed(11);
    const x = Array.from({ length: 40 }, () => Float64Array.of(rng.next(), rng.next()));
    const y = x.map((p) => Math.sin(12 * p[0]) + 0.3 * p[1]);
    const fitted = fitHyper(x, y, oneFeaturePerDim(2), 2, defaultHyper(2), 80);
    const [l0, l1] = [Math.exp(fitted[0]), Math.exp(fitted[1])];
    expect(l0).toBeLessThan(0.5);
    expect(l1 / l0).toBeGreaterThan(3);
    // And the fit improved the objective over its start.
    const dist = new PairDistances(x, oneFeaturePerDim(2), 2);
    expect(logPosterior(dist, y, fitted)!.value).toBeGreaterThan(logPosterior(dist, y, defaultHyper(2))!.value);
  });

  it('is deterministic and warm-starts from the previous fit', () => {
    const rng = Prng.fromSeed(5);
    const x = Array.from({ length: 20 }, () => Float64Array.of(rng.next()));
    const y = x.map((p) => Math.cos(6 * p[0]));
    const a = fitHyper(x, y, oneFeaturePerDim(1), 1, defaultHyper(1), 40);
    expect(fitHyper(x, y, oneFeaturePerDim(1), 1, defaultHyper(1), 40)).toEqual(a);
    const dist = new PairDistances(x, oneFeaturePerDim(1), 1);
    const warm = fitHyper(x, y, oneFeaturePerDim(1), 1, a, 5);
    expect(logPosterior(dist, y, warm)!.value).toBeGreaterThanOrEqual(logPosterior(dist, y, a)!.value);
  });
});
