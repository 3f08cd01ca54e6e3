// The analytic prior (OptimizerRuntime.prior) as the GP's prior mean, and batches spread over parallel
// shapes (OptimizerOptions.shapeDimensions): used only by optimizers created with them, deterministic
// across restore, an informative prior steers the GP rounds, an anti-correlated one is ignored.
import { describe, expect, it } from 'vitest';
import { createOptimizer, restoreOptimizer, type OptimizerRuntime } from '../../../src/search/optimizer/index.js';
import type { AnalyticPrior } from '../../../src/search/optimizer/optimizer.js';
import { pointKey } from '../../../src/search/optimizer/space.js';
import { objective, project, single, SPACE, study } from './toy-space.js';

const exact: AnalyticPrior = (ps) => ps.map((p) => [objective(project(p))]);
const negated: AnalyticPrior = (ps) => ps.map((p) => [-objective(project(p))]);
const OPTIMUM = { backend: 'b', seqs: 256, ratio: 0.75 };

const make = (seed: number, opts: { priorMean?: boolean; shapeDimensions?: string[] }, runtime: OptimizerRuntime) =>
  createOptimizer({ space: SPACE, algorithm: 'bayesian', objectives: single, seed, ...opts }, { project, ...runtime });

describe('analytic prior mean', () => {
  it('is ignored by an optimizer created without priorMean (asks as before)', () => {
    expect(study(make(3, {}, { prior: exact }), 4, 6)).toEqual(study(make(3, {}, {}), 4, 6));
    expect(make(3, {}, {}).state().prior_mean).toBeUndefined();
  });

  it('an anti-correlated prior gets no weight: the same asks as without one', () => {
    expect(study(make(4, { priorMean: true }, { prior: negated }), 4, 6)).toEqual(study(make(4, { priorMean: true }, {}), 4, 6));
  });

  it('an informative prior finds the optimum in the first GP round', () => {
    const key = pointKey(SPACE, OPTIMUM);
    for (const seed of [1, 2, 3, 4, 5]) {
      const o = make(seed, { priorMean: true }, { prior: exact });
      study(o, 1, 8);
      expect(o.ask(8).map((p) => pointKey(SPACE, p))).toContain(key);
    }
  });

  it('restores to the same asks with the same prior', () => {
    const o = make(6, { priorMean: true }, { prior: exact });
    study(o, 2, 6);
    const state = JSON.parse(JSON.stringify(o.state()));
    expect(state.prior_mean).toBe(true);
    expect(restoreOptimizer(state, { project, prior: exact }).ask(6)).toEqual(o.ask(6));
  });
});

describe('batches spread over parallel shapes', () => {
  it('takes at most two points of one shape per batch while other shapes remain', () => {
    const o = make(7, { shapeDimensions: ['backend'] }, {});
    study(o, 1, 8);
    for (let r = 0; r < 3; r++) {
      const ps = o.ask(6);
      const per = new Map<unknown, number>();
      for (const p of ps) per.set(p.backend, (per.get(p.backend) ?? 0) + 1);
      expect([...per.values()].every((n) => n <= 2)).toBe(true);
      o.tell(ps.map((p) => ({ point: p, observed: project(p), values: { v: objective(project(p)) }, feasible: true })));
    }
    expect(o.state().shape).toEqual(['backend']);
  });
});
