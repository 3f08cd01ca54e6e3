// The rapid (bayesian) search's structure: corners in the design, a trust-region pick from the
// incumbent's coordinate neighbourhood in every batch, hyperparameter refits as the data grows, and
// a model of what asking a point yields (asked points, not their projections).
import { describe, expect, it } from 'vitest';
import { selectBatch } from '../../../src/search/optimizer/acquisition.js';
import { FantasyBelief } from '../../../src/search/optimizer/fantasy.js';
import { GpPosterior, defaultHyper } from '../../../src/search/optimizer/gp.js';
import { createOptimizer, type Dimension, type Optimizer, type Point } from '../../../src/search/optimizer/index.js';
import { Prng } from '../../../src/search/optimizer/prng.js';
import { SpaceCodec } from '../../../src/search/optimizer/space.js';
import { MIXED_SPACE, mixedObjective } from './synthetic.js';

const single = [{ name: 'v', direction: 'max' as const }];
const tell = (o: Optimizer, ps: Point[], f: (p: Point) => number) => o.tell(ps.map((p) => ({ point: p, values: { v: f(p) }, feasible: true })));

describe('initial design', () => {
  it('starts with the lower and the upper corner of every numeric dimension, categoricals still varying', () => {
    const o = createOptimizer({ space: MIXED_SPACE, algorithm: 'bayesian', objectives: single, seed: 5 });
    const [low, high, third] = o.ask(3);
    expect([low.seqs, low.ratio, low.scale]).toEqual([1, 0, 0.25]);
    expect([high.seqs, high.ratio, high.scale]).toEqual([256, 1, 32]);
    expect(MIXED_SPACE[0].values).toContain(low.backend);
    expect(MIXED_SPACE[0].values).toContain(high.backend);
    expect([third.ratio, third.scale]).not.toEqual([0, 0.25]); // then the space-filling sequence
    // Injected initial points still come first.
    const first = { backend: 'mock', seqs: 8, ratio: 0.5, scale: 4 };
    const withInit = createOptimizer({ space: MIXED_SPACE, algorithm: 'bayesian', objectives: single, seed: 5, initialPoints: [first] });
    const asked = withInit.ask(2);
    expect(asked[0]).toEqual(first);
    expect(asked[1]).toEqual(low);
  });
});

describe('trust-region picks', () => {
  it('the second pick of a batch is the best UCB among the marked local candidates', () => {
    const space: Dimension[] = [
      { name: 'x', kind: 'continuous', values: [0, 1] },
      { name: 'y', kind: 'continuous', values: [0, 1] },
    ];
    const codec = new SpaceCodec(space);
    const rng = Prng.fromSeed(2);
    const pts = Array.from({ length: 12 }, () => codec.sampleUniform(rng));
    const x = pts.map((p) => codec.encode(p));
    const y = pts.map((p) => Math.sin(5 * (p.x as number)) + (p.y as number));
    const gp = new GpPosterior(x, y, codec.featureDim, defaultHyper(2));
    const cands = Array.from({ length: 200 }, () => codec.encode(codec.sampleUniform(rng)));
    const local = Uint8Array.from(cands, (_, i) => (i % 10 === 3 ? 1 : 0));
    const beta = 1.8;
    const picks = selectBatch({ beliefs: [new FantasyBelief(gp, cands)], encoded: cands, feasibility: null, local, count: 4, beta, reference: [0], rng });
    expect(local[picks[1]]).toBe(1);
    // Recompute the fantasy-conditioned UCB after the first pick to check it is the local argmax.
    const b = new FantasyBelief(gp, cands);
    b.addFantasy(cands[picks[0]]);
    const ucb = (i: number) => b.mean[i] + beta * Math.sqrt(b.variance[i]);
    const bestLocal = cands.map((_, i) => i).filter((i) => local[i] && i !== picks[0]).sort((i, j) => ucb(j) - ucb(i))[0];
    expect(picks[1]).toBe(bestLocal);
    // Without a local set the same request picks somewhere else (pure exploration), so the mask matters.
    const plain = selectBatch({ beliefs: [new FantasyBelief(gp, cands)], encoded: cands, feasibility: null, count: 4, beta, reference: [0], rng: Prng.fromSeed(2) });
    expect(plain[1]).not.toBe(picks[1]);
  });
});

describe('hyperparameter refits', () => {
  it('refits only after the modelled data grew by refitGrowth, keeping the asks deterministic', () => {
    const o = createOptimizer({ space: MIXED_SPACE, algorithm: 'bayesian', objectives: single, seed: 9 });
    const probe = createOptimizer({ space: MIXED_SPACE, algorithm: 'random', objectives: single, seed: 1 });
    tell(o, o.ask(40), mixedObjective);
    o.ask(1);
    const first = o.state();
    expect(first.fittedOn).toBe(40);
    tell(o, first.pending, mixedObjective);
    tell(o, probe.ask(2), mixedObjective); // 43 < 44: keep the hyperparameters
    o.ask(1);
    expect(o.state().hyper).toEqual(first.hyper);
    expect(o.state().fittedOn).toBe(40);
    tell(o, o.state().pending, mixedObjective);
    tell(o, probe.ask(2), mixedObjective); // 46 ≥ 44: refit (warm)
    o.ask(1);
    expect(o.state().fittedOn).toBe(46);
    expect(o.state().hyper).not.toEqual(first.hyper);
  });
});

describe('corner optima (fewest GPUs): found far sooner than by random sampling', () => {
  // The optimum sits at the lower bound of a continuous ratio (within 3 % of its range), as a
  // throughput-per-GPU optimum sits at the fewest GPUs; the other knobs interact mildly.
  const SPACE: Dimension[] = [
    { name: 'backend', kind: 'categorical', values: ['a', 'b', 'c'] },
    { name: 'seqs', kind: 'discrete', values: [256, 512, 1024], log_scale: true },
    { name: 'engine', kind: 'discrete', values: [1, 2, 4, 8], log_scale: true },
    { name: 'ratio', kind: 'continuous', values: [0.0625, 1] },
  ];
  const value = (p: Point) => {
    const gpus = Math.max(p.engine as number, Math.round((p.ratio as number) * 16));
    return (p.backend === 'c' ? 1.2 : p.backend === 'a' ? 1 : 0.9) * (1 + 0.05 * Math.log2((p.seqs as number) / 256)) / Math.sqrt(gpus);
  };
  const best = 1.2 * 1.1;
  const trialsTo99 = (algorithm: 'bayesian' | 'random', seed: number) => {
    const o = createOptimizer({ space: SPACE, algorithm, objectives: single, seed });
    for (let n = 0; n < 48; n += 8) {
      const ps = o.ask(8);
      const hit = ps.findIndex((p) => value(p) >= 0.99 * best);
      if (hit >= 0) return n + hit + 1;
      tell(o, ps, value);
    }
    return Infinity;
  };

  it('reaches 99 % of the optimum within 48 trials in most seeds, random in few', () => {
    const seeds = [1, 2, 3, 4, 5, 6];
    const bo = seeds.map((s) => trialsTo99('bayesian', s)).filter(Number.isFinite).length;
    const rnd = seeds.map((s) => trialsTo99('random', s)).filter(Number.isFinite).length;
    expect(bo).toBeGreaterThanOrEqual(5);
    expect(bo).toBeGreaterThan(rnd);
  });
});
