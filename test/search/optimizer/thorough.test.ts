import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { enumerateSpace } from '../../../src/search/optimizer/index.js';

describe('enumerateSpace (thorough)', () => {
  it('enumerates the full Cartesian product, first dimension slowest, values in declared order', () => {
    const pts = enumerateSpace([
      { name: 'mode', kind: 'categorical', values: ['agg', 'disagg'] },
      { name: 'seqs', kind: 'discrete', values: [512, 256, 1024] },
      { name: 'cache', kind: 'categorical', values: [true, false] },
    ]);
    expect(pts).toHaveLength(12);
    expect(pts.slice(0, 4)).toEqual([
      { mode: 'agg', seqs: 512, cache: true },
      { mode: 'agg', seqs: 512, cache: false },
      { mode: 'agg', seqs: 256, cache: true },
      { mode: 'agg', seqs: 256, cache: false },
    ]);
    expect(pts[11]).toEqual({ mode: 'disagg', seqs: 1024, cache: false });
    expect(new Set(pts.map((p) => JSON.stringify(p))).size).toBe(12);
  });

  it('rejects continuous ranges with a clear InputError naming them', () => {
    const space = [
      { name: 'mode', kind: 'categorical' as const, values: ['agg'] },
      { name: 'kv_load_ratio', kind: 'continuous' as const, values: [0, 1] },
    ];
    expect(() => enumerateSpace(space)).toThrow(InputError);
    expect(() => enumerateSpace(space)).toThrow(/continuous.*'kv_load_ratio'/);
  });

  it('rejects a space whose product is too large to materialize', () => {
    const big = Array.from({ length: 8 }, (_, i) => ({ name: `d${i}`, kind: 'discrete' as const, values: Array.from({ length: 10 }, (_, k) => k) }));
    expect(() => enumerateSpace(big)).toThrow(/limit/);
  });
});
