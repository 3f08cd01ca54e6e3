// Projection basins: candidates an earlier projection says would land on an evaluated point again.
import { describe, expect, it } from 'vitest';
import { basinIndex } from '../../../src/search/optimizer/basins.js';
import { createOptimizer, type Dimension, type Point } from '../../../src/search/optimizer/index.js';
import type { StoredTrial } from '../../../src/search/optimizer/optimizer.js';
import { PointMemo } from '../../../src/search/optimizer/point-memo.js';
import { SpaceCodec } from '../../../src/search/optimizer/space.js';

const SPACE: Dimension[] = [
  { name: 'backend', kind: 'categorical', values: ['a', 'b'] },
  { name: 'seqs', kind: 'discrete', values: [64, 128, 256, 512], log_scale: true },
  { name: 'ratio', kind: 'continuous', values: [0, 1] },
  { name: 'share', kind: 'continuous', values: [0, 1] },
];

const memo = () => new PointMemo(new SpaceCodec(SPACE));

describe('basinIndex', () => {
  // Asked ratio 0.4 was projected onto 0.5: no legal ratio lies within 0.1 of 0.4.
  const trials: StoredTrial[] = [
    { p: { backend: 'a', seqs: 128, ratio: 0.4, share: 0.5 }, o: { backend: 'a', seqs: 128, ratio: 0.5, share: 0.5 }, y: [1], f: true },
  ];

  it('flags a candidate between the asked and the evaluated point', () => {
    expect(basinIndex(memo(), trials).test({ backend: 'a', seqs: 128, ratio: 0.45, share: 0.5 })).toBe(true);
    expect(basinIndex(memo(), trials).test({ backend: 'a', seqs: 128, ratio: 0.42, share: 0.5 })).toBe(true);
  });

  it('leaves alone candidates outside the ball, on another categorical, or with another unprojected value', () => {
    const index = basinIndex(memo(), trials);
    expect(index.test({ backend: 'a', seqs: 128, ratio: 0.1, share: 0.5 })).toBe(false);
    // share was never changed by the projection either.
    expect(index.test({ backend: 'a', seqs: 128, ratio: 0.45, share: 0.9 })).toBe(false);
    expect(index.test({ backend: 'b', seqs: 128, ratio: 0.45, share: 0.5 })).toBe(false);
    // seqs was never changed by the projection: another value is another candidate.
    expect(index.test({ backend: 'a', seqs: 256, ratio: 0.45, share: 0.5 })).toBe(false);
  });

  it('has no basins when no evaluated point differed from its ask', () => {
    const plain: StoredTrial[] = [{ p: { backend: 'a', seqs: 128, ratio: 0.4, share: 0.5 }, y: [1], f: true }];
    expect(basinIndex(memo(), plain).test({ backend: 'a', seqs: 128, ratio: 0.41, share: 0.5 })).toBe(false);
  });
});

describe('bayesian asks avoid projection basins', () => {
  it('never asks a point that an earlier projection already maps onto an evaluated one', () => {
    // The "projection" snaps ratio and share to a coarse lattice, as legal parallel configs do.
    const project = (p: Point): Point => ({
      ...p,
      ratio: Math.round((p.ratio as number) * 4) / 4,
      share: Math.round((p.share as number) * 2) / 2,
    });
    const value = (q: Point) => (q.backend === 'b' ? 1 : 0) - ((q.ratio as number) - 0.75) ** 2 - 0.2 * Math.abs(Math.log2(q.seqs as number) - 8);
    const o = createOptimizer({ space: SPACE, algorithm: 'bayesian', objectives: [{ name: 'v', direction: 'max' }], seed: 7 });
    let checked = 0;
    for (let round = 0; round < 6; round++) {
      const before = o.state().trials;
      const asked = o.ask(8);
      if (before.length >= 8) {
        const index = basinIndex(memo(), before);
        for (const p of asked) expect(index.test(p)).toBe(false);
        checked += asked.length;
      }
      o.tell(asked.map((p) => ({ point: p, observed: project(p), values: { v: value(project(p)) }, feasible: true })));
    }
    expect(checked).toBeGreaterThan(0);
  });
});
