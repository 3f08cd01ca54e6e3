// Asks that the caller maps onto other points (latent parallel features projected onto a legal config):
// the optimizer learns from the evaluated point, and avoids proposing near-repeats of what it has seen.
import { describe, expect, it } from 'vitest';
import { createOptimizer, restoreOptimizer, type Optimizer, type Point } from '../../../src/search/optimizer/index.js';
import { generateCandidates, NEAR_RADIUS } from '../../../src/search/optimizer/candidates.js';
import { ScrambledHalton } from '../../../src/search/optimizer/halton.js';
import { Prng } from '../../../src/search/optimizer/prng.js';
import { pointKey, SpaceCodec } from '../../../src/search/optimizer/space.js';

import { objective, project, single, SPACE } from './toy-space.js';

function study(o: Optimizer, rounds: number, batch: number, withObserved: boolean): Point[] {
  const evaluated: Point[] = [];
  for (let r = 0; r < rounds; r++) {
    const asked = o.ask(batch);
    const observed = asked.map(project);
    evaluated.push(...observed);
    o.tell(asked.map((p, i) => ({ point: p, ...(withObserved ? { observed: observed[i] } : {}), values: { v: objective(observed[i]) }, feasible: true })));
  }
  return evaluated;
}

describe('observed (projected) points', () => {
  it('stores the evaluated point beside the asked one and restores to the same asks', () => {
    const o = createOptimizer({ space: SPACE, algorithm: 'bayesian', objectives: single, seed: 4 });
    study(o, 2, 8, true);
    const trials = o.state().trials;
    for (const t of trials) {
      if (t.o) {
        expect(t.o).toEqual(project(t.p));
        expect(t.o).not.toEqual(t.p);
      } else expect(project(t.p)).toEqual(t.p);
    }
    const restored = restoreOptimizer(JSON.parse(JSON.stringify(o.state())));
    expect(restored.ask(6)).toEqual(o.ask(6));
  });

  it('rejects an observed point outside the space', () => {
    const o = createOptimizer({ space: SPACE, algorithm: 'bayesian', objectives: single, seed: 0 });
    const [p] = o.ask(1);
    expect(() => o.tell([{ point: p, observed: { ...p, seqs: 3 }, values: { v: 1 }, feasible: true }])).toThrow(/not a member/);
  });

  it('never asks an already evaluated (observed) point again', () => {
    const o = createOptimizer({ space: SPACE, algorithm: 'bayesian', objectives: single, seed: 1 });
    const evaluated = study(o, 3, 8, true);
    const keys = new Set(evaluated.map((q) => pointKey(SPACE, q)));
    for (const p of o.ask(16)) expect(keys.has(pointKey(SPACE, p))).toBe(false);
  });

  it('learns from the evaluated points: finds the lattice optimum far more often than random', () => {
    const hits = (algorithm: 'bayesian' | 'random') => {
      let found = 0;
      for (let seed = 0; seed < 8; seed++) {
        const ev = study(createOptimizer({ space: SPACE, algorithm, objectives: single, seed }), 3, 8, true);
        if (Math.max(...ev.map(objective)) >= 1 - 1e-9) found++;
      }
      return found;
    };
    const bo = hits('bayesian');
    const rnd = hits('random');
    expect(bo).toBeGreaterThan(rnd);
    expect(bo).toBeGreaterThanOrEqual(6);
  });
});

describe('candidate set: near-repeats of seen points are left out', () => {
  it('drops candidates equal on every finite dimension and within NEAR_RADIUS on the continuous ones', () => {
    const codec = new SpaceCodec(SPACE);
    const near: Point[] = [
      { backend: 'a', seqs: 256, ratio: 0.5 },
      { backend: 'b', seqs: 64, ratio: 0.1 },
    ];
    const req = (withNear: boolean) =>
      generateCandidates({
        codec,
        rng: Prng.fromSeed(3),
        halton: new ScrambledHalton(SPACE.length, 3),
        haltonStart: 0,
        budget: 600,
        anchors: near,
        exclude: new Set(),
        ...(withNear ? { near } : {}),
      }).points;
    const isNear = (p: Point) =>
      near.some((q) => q.backend === p.backend && q.seqs === p.seqs && Math.abs((q.ratio as number) - (p.ratio as number)) < NEAR_RADIUS);
    expect(req(false).some(isNear)).toBe(true); // local moves around the anchors do produce them
    const filtered = req(true);
    expect(filtered.length).toBeGreaterThan(400);
    expect(filtered.some(isNear)).toBe(false);
  });
});
