import { describe, expect, it } from 'vitest';
import { Prng } from '../../../src/search/optimizer/prng.js';
import { SpaceCodec, type Dimension, type Point } from '../../../src/search/optimizer/space.js';

const SPACE: Dimension[] = [
  { name: 'backend', kind: 'categorical', values: ['vllm', 'sglang', 'trtllm'] },
  { name: 'seqs', kind: 'discrete', values: [1024, 256, 512, 64, 128], log_scale: true },
  { name: 'ratio', kind: 'continuous', values: [0.25, 1] },
  { name: 'router', kind: 'categorical', values: ['kv', 'rr'] },
  { name: 'pinned', kind: 'discrete', values: [8] },
];
const BASE: Point = { backend: 'sglang', seqs: 256, ratio: 0.5, router: 'kv', pinned: 8 };
const ORDER = [64, 128, 256, 512, 1024];

const changed = (a: Point, b: Point) => SPACE.filter((d) => a[d.name] !== b[d.name]).map((d) => d.name);

describe('SpaceCodec.neighbour (local candidates that really move discrete knobs)', () => {
  const codec = new SpaceCodec(SPACE);

  it('changes exactly the requested number of movable dimensions, staying inside the space', () => {
    const rng = Prng.fromSeed(11);
    for (const changes of [1, 2, 3]) {
      for (let i = 0; i < 200; i++) {
        const q = codec.neighbour(BASE, changes, rng);
        expect(changed(BASE, q)).toHaveLength(changes);
        expect(() => codec.checkPoint(q)).not.toThrow();
        expect(q.pinned).toBe(8); // a one-member dimension never counts as movable
      }
    }
  });

  it('steps a discrete dimension to an adjacent member in sorted order (two steps at most)', () => {
    const rng = Prng.fromSeed(5);
    const steps = new Set<number>();
    for (let i = 0; i < 400; i++) {
      const q = codec.neighbour(BASE, 1, rng);
      if (q.seqs !== BASE.seqs) steps.add(ORDER.indexOf(q.seqs as number) - ORDER.indexOf(BASE.seqs as number));
    }
    expect([...steps].sort()).toEqual([-1, -2, 1, 2].sort());
    // At the edge of the order, the step reflects inwards instead of leaving the members.
    const edge = { ...BASE, seqs: 1024 };
    for (let i = 0; i < 200; i++) {
      const q = codec.neighbour(edge, 1, rng);
      if (q.seqs !== 1024) expect([256, 512]).toContain(q.seqs);
    }
  });

  it('caps the changes at the number of movable dimensions and is deterministic per PRNG state', () => {
    const q = codec.neighbour(BASE, 10, Prng.fromSeed(3));
    expect(changed(BASE, q).sort()).toEqual(['backend', 'ratio', 'router', 'seqs']);
    const walk = (seed: number) => {
      const r = Prng.fromSeed(seed);
      return Array.from({ length: 5 }, () => codec.neighbour(BASE, 2, r));
    };
    expect(walk(9)).toEqual(walk(9));
    expect(walk(10)).not.toEqual(walk(9));
  });

  it('unlike a small Gaussian perturbation, moves the discrete and categorical knobs', () => {
    const rng = Prng.fromSeed(1);
    let perturbMovedFinite = 0;
    let neighbourMovedFinite = 0;
    for (let i = 0; i < 200; i++) {
      if (changed(BASE, codec.perturb(BASE, 0.02, rng)).some((n) => n !== 'ratio')) perturbMovedFinite++;
      if (changed(BASE, codec.neighbour(BASE, 1, rng)).some((n) => n !== 'ratio')) neighbourMovedFinite++;
    }
    expect(perturbMovedFinite).toBeLessThan(20);
    expect(neighbourMovedFinite).toBeGreaterThan(120);
  });
});
