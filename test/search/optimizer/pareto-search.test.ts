import { describe, expect, it } from 'vitest';
import { createOptimizer, restoreOptimizer } from '../../../src/search/optimizer/index.js';
import type { Point } from '../../../src/search/optimizer/index.js';
import { hypervolume2d, paretoFront } from '../../../src/search/pareto.js';
import { MIXED_SPACE, mixedObjective } from './synthetic.js';

// Two conflicting objectives: a throughput-like score (max) and a latency-like cost (min) whose
// best region (ratio 0.2, seqs 2) differs from the score's (ratio 0.73, seqs 16).
const latency = (p: Point) => 1 + ((p.ratio as number) - 0.2) ** 2 * 4 + Math.abs(Math.log2(p.seqs as number) - 1) * 0.2;
const objectives = [
  { name: 'tput', direction: 'max' as const },
  { name: 'lat', direction: 'min' as const },
];

function frontVolume(algorithm: 'bayesian' | 'random', seed: number, rounds: number): { hv: number; asked: Point[] } {
  const o = createOptimizer({ space: MIXED_SPACE, algorithm, objectives, seed });
  const asked: Point[] = [];
  for (let r = 0; r < rounds; r++) {
    const ps = o.ask(8);
    asked.push(...ps);
    o.tell(ps.map((p) => ({ point: p, values: { tput: mixedObjective(p), lat: latency(p) }, feasible: true })));
  }
  const ys = asked.map((p) => [mixedObjective(p), latency(p)]);
  return { hv: hypervolume2d(paretoFront(ys, ['max', 'min']), [0, 6], ['max', 'min']), asked };
}

describe('multi-objective (pareto goal)', () => {
  it('finds a larger hypervolume than random (median over 5 seeds, 40 trials)', () => {
    const med = (xs: number[]) => xs.slice().sort((a, b) => a - b)[2];
    const bo = med(Array.from({ length: 5 }, (_, s) => frontVolume('bayesian', s, 5).hv));
    const rnd = med(Array.from({ length: 5 }, (_, s) => frontVolume('random', s, 5).hv));
    expect(bo).toBeGreaterThan(rnd * 1.1);
  });

  it('is deterministic and restorable with several objectives', () => {
    expect(frontVolume('bayesian', 9, 3).asked).toEqual(frontVolume('bayesian', 9, 3).asked);
    const o = createOptimizer({ space: MIXED_SPACE, algorithm: 'bayesian', objectives, seed: 2 });
    for (let r = 0; r < 2; r++)
      o.tell(o.ask(8).map((p) => ({ point: p, values: { tput: mixedObjective(p), lat: latency(p) }, feasible: true })));
    const restored = restoreOptimizer(o.state());
    expect(restored.ask(8)).toEqual(o.ask(8));
    expect(o.state().hyper).toHaveLength(2);
  });
});
