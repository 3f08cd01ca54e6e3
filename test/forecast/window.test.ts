import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { windowTrace } from '../../src/forecast/window.js';

describe('windowTrace', () => {
  it('counts requests and averages ISL/OSL per window, carrying means over empty windows', () => {
    const w = windowTrace(
      [
        { arrival_ms: 0, isl: 100, osl: 10 },
        { arrival_ms: 999, isl: 300, osl: 30 },
        { arrival_ms: 1000, isl: 50, osl: 5 },
        // window 2 (2000–2999 ms) and 3 empty
        { arrival_ms: 4500, isl: 80, osl: 8 },
      ],
      1,
    );
    expect(Array.from(w.count)).toEqual([2, 1, 0, 0, 1]);
    expect(Array.from(w.meanIsl)).toEqual([200, 50, 50, 50, 80]);
    expect(Array.from(w.meanOsl)).toEqual([20, 5, 5, 5, 8]);
  });

  it('does not depend on request order and keeps a partial last window', () => {
    const w = windowTrace(
      [
        { arrival_ms: 180_001, isl: 1, osl: 1 },
        { arrival_ms: 0, isl: 1, osl: 1 },
      ],
      180,
    );
    expect(Array.from(w.count)).toEqual([1, 1]);
  });

  it('is empty for an empty trace and rejects bad intervals or arrivals', () => {
    expect(windowTrace([], 60).count.length).toBe(0);
    expect(() => windowTrace([{ arrival_ms: 0, isl: 1, osl: 1 }], 0)).toThrow(InputError);
    expect(() => windowTrace([{ arrival_ms: -5, isl: 1, osl: 1 }], 60)).toThrow(InputError);
    expect(() => windowTrace([{ arrival_ms: 0, isl: Number.NaN, osl: 1 }], 60)).toThrow(/isl\/osl/);
  });
});
