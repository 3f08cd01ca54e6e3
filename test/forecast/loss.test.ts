import { describe, expect, it } from 'vitest';
import { log1pError, windowForecastLoss } from '../../src/forecast/loss.js';

describe('forecast loss', () => {
  it('e(p, a) is the absolute log1p distance with negatives clamped to 0', () => {
    expect(log1pError(Math.E - 1, 0)).toBeCloseTo(1, 12);
    expect(log1pError(0, Math.E - 1)).toBeCloseTo(1, 12);
    expect(log1pError(-5, 0)).toBe(0);
  });

  it('is 0 for a perfect forecast and weighs token demand 0.4/0.4 and means 0.1/0.1', () => {
    const actual = { numReq: 10, isl: 100, osl: 20 };
    expect(windowForecastLoss(actual, actual)).toBe(0);
    // Only the request count is off: ISL/OSL terms vanish, both demand terms see the ratio 2.
    const off = windowForecastLoss({ ...actual, numReq: 20 }, actual);
    const expected = 0.4 * (Math.log1p(2000) - Math.log1p(1000)) + 0.4 * (Math.log1p(400) - Math.log1p(200));
    expect(off).toBeCloseTo(expected, 12);
    // Only ISL is off: one demand term (0.4) plus the ISL term (0.1).
    const islOff = windowForecastLoss({ ...actual, isl: 200 }, actual);
    expect(islOff).toBeCloseTo(0.4 * (Math.log1p(2000) - Math.log1p(1000)) + 0.1 * (Math.log1p(200) - Math.log1p(100)), 12);
  });
});
