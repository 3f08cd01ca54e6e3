// The small mixed space the projection tests share: a categorical, a log-scaled discrete and a
// continuous dimension, a "projection" that snaps the continuous one onto a lattice of 5 legal values
// (75 legal points in all), and a smooth objective whose optimum is backend b, 256 seqs, ratio 0.75.
import type { Dimension, Optimizer, Point } from '../../../src/search/optimizer/index.js';

export const SPACE: Dimension[] = [
  { name: 'backend', kind: 'categorical', values: ['a', 'b', 'c'] },
  { name: 'seqs', kind: 'discrete', values: [64, 128, 256, 512, 1024], log_scale: true },
  { name: 'ratio', kind: 'continuous', values: [0, 1] },
];
export const single = [{ name: 'v', direction: 'max' as const }];
export const project = (p: Point): Point => ({ ...p, ratio: Math.round((p.ratio as number) * 4) / 4 });
export const objective = (q: Point): number =>
  (q.backend === 'b' ? 1 : 0) - 0.3 * (Math.log2(q.seqs as number) - 8) ** 2 - 4 * ((q.ratio as number) - 0.75) ** 2;

/** Runs `rounds` ask/tell rounds of `batch` points on the toy objective; every asked point, in order. */
export function study(o: Optimizer, rounds: number, batch: number): Point[] {
  const asked: Point[] = [];
  for (let r = 0; r < rounds; r++) {
    const ps = o.ask(batch);
    asked.push(...ps);
    o.tell(ps.map((p) => ({ point: p, observed: project(p), values: { v: objective(project(p)) }, feasible: true })));
  }
  return asked;
}
