import { describe, expect, it } from 'vitest';
import { fitOverhead, predictCase, type RawCase } from '../../src/hardware/perf/overheadFit.js';
import { fnv1a } from '../../src/hardware/perf/calibration.js';
import { meanBurstPasses } from '../../src/hardware/perf/steadyState.js';

describe('backend overhead fit', () => {
  it('recovers the per-pass overhead, kernel scale, interleave and TTFT terms from synthetic measurements', () => {
    const truth = { kernelScale: 1.2, passMs: 2, perLayerMs: 0.02, prefillInterleave: 0.5, burstShare: 0.3, ttftFixedMs: 60, burstRequests: 400, prefillScale: 1.3 };
    const cases: RawCase[] = [];
    for (let i = 0; i < 120; i++) {
      const r = (k: string): number => (fnv1a(`${k}${i}`) % 1000) / 1000;
      const b = 1 + Math.floor(r('b') * 128);
      const isl = [1024, 4096, 8192][i % 3];
      const layers = [32, 61, 80][i % 3];
      const decodeMs = 3 + 30 * r('d');
      const prefillOneMs = 5 + 100 * r('p');
      const burstTokens = Math.min(8192, b * isl);
      const steps = 100 + Math.floor(900 * r('o'));
      const parts = {
        b,
        concurrency: b,
        chunks: 1,
        mixedFraction: Math.min(1, (b - 1) / steps),
        decodeMs,
        mixedMs: decodeMs * (1.5 + 3 * r('m')),
        prefillOneMs,
        prefillBatchMs: 0,
        burstPassMs: prefillOneMs * (burstTokens / isl),
        burstPasses: meanBurstPasses(b, isl, 8192),
        burstShareOfPass: isl / burstTokens,
        steps,
      };
      const c: RawCase = { layers, parts, tpotMs: 0, ttftMs: 0 };
      const y = predictCase(c, truth);
      cases.push({ ...c, tpotMs: y.tpotMs, ttftMs: y.ttftMs });
    }
    const fit = fitOverhead(cases);
    expect(fit.tpotMedianErr).toBeLessThan(0.01);
    expect(fit.ttftMedianErr).toBeLessThan(0.02);
    expect(fit.kernelScale).toBeCloseTo(1.2, 1);
    expect(fit.burstShare).toBeGreaterThanOrEqual(0.25);
    expect(fit.burstShare).toBeLessThanOrEqual(0.35);
    expect(fit.burstRequests).toBeGreaterThanOrEqual(340);
    expect(fit.burstRequests).toBeLessThanOrEqual(460);
    expect(fit.prefillScale).toBeGreaterThanOrEqual(1.2);
    expect(fit.prefillScale).toBeLessThanOrEqual(1.4);
    expect(fit.ttftFixedMs).toBeGreaterThanOrEqual(50);
    expect(fit.ttftFixedMs).toBeLessThanOrEqual(70);
  });
});
