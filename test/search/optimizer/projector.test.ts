// An optimizer given the caller's projector (OptimizerRuntime.project, e.g. the branch's latent →
// legal-config projection) asks only points that are their own projection, never one whose projection
// was already asked or evaluated, and stays deterministic across restore with the same projector.
import { describe, expect, it } from 'vitest';
import { createOptimizer, restoreOptimizer, type Point } from '../../../src/search/optimizer/index.js';
import { pointKey } from '../../../src/search/optimizer/space.js';

import { objective, project, single, SPACE, study } from './toy-space.js';

describe('optimizer with a projector', () => {
  it('asks only legal points, each at most once, through the design and the GP rounds', () => {
    const o = createOptimizer({ space: SPACE, algorithm: 'bayesian', objectives: single, seed: 2, initialPoints: [{ backend: 'a', seqs: 256, ratio: 0.4 }] }, { project });
    const asked = study(o, 6, 8);
    expect(asked.length).toBe(48);
    for (const p of asked) expect(project(p)).toEqual(p);
    expect(new Set(asked.map((p) => pointKey(SPACE, p))).size).toBe(asked.length);
    // The told trials carry no separate evaluated point: the ask was the evaluated point.
    expect(o.state().trials.every((t) => t.o === undefined)).toBe(true);
  });

  it('restores to the same asks with the same projector', () => {
    const o = createOptimizer({ space: SPACE, algorithm: 'bayesian', objectives: single, seed: 5 }, { project });
    study(o, 3, 8);
    const state = JSON.parse(JSON.stringify(o.state()));
    expect(restoreOptimizer(state, { project }).ask(8)).toEqual(o.ask(8));
    const again = restoreOptimizer(state, { project }).ask(8);
    expect(again.every((p) => pointKey(SPACE, project(p)) === pointKey(SPACE, p))).toBe(true);
  });


  it('asks the caller\'s low corner as the first design point', () => {
    const lowCorners = (p: Point): Point[] => [{ ...p, ratio: 0.25 }];
    const o = createOptimizer({ space: SPACE, algorithm: 'bayesian', objectives: single, seed: 3 }, { project, lowCorners });
    const [first, second] = o.ask(2);
    expect(first.ratio).toBe(0.25);
    expect(first.seqs).toBe(64); // the corner's numerics: every one at its lower bound, but as the caller sets them
    expect(project(second)).toEqual(second);
  });

  it('asks every low corner the caller gives (one per backend) right after the first, then the design', () => {
    const lowCorners = (p: Point): Point[] => ['a', 'b', 'c'].map((backend) => ({ ...p, backend, ratio: backend === 'c' ? 0.5 : 0.25 })).sort((x, y) => (x.backend === p.backend ? -1 : y.backend === p.backend ? 1 : 0));
    const o = createOptimizer({ space: SPACE, algorithm: 'bayesian', objectives: single, seed: 3 }, { project, lowCorners });
    const asked = o.ask(5);
    const corners = lowCorners(asked[0]).map((c) => project(c));
    expect(asked.slice(0, 3)).toEqual(corners);
    expect(new Set(asked.slice(0, 3).map((p) => p.backend)).size).toBe(3);
    // The design goes on after them (the high corner: every numeric at its upper bound).
    expect(asked[3]).toMatchObject({ seqs: 1024, ratio: 1 });
    // Restored before the corners were asked, the same asks.
    const again = createOptimizer({ space: SPACE, algorithm: 'bayesian', objectives: single, seed: 3 }, { project, lowCorners });
    expect(again.ask(5)).toEqual(asked);
  });
});
