import { describe, expect, it } from 'vitest';
import { fitPassTime, FpmWindow, predictPassMs } from '../../../src/replay/planner/fpm-regression.js';
import { estimateItlMs, estimateTtftMs, loadScalingStep } from '../../../src/replay/planner/load-scaling.js';

function windowOf(capacity: number, samples: [number, number, number][]): FpmWindow {
  const w = new FpmWindow(capacity);
  for (const [p, k, y] of samples) w.add(p, k, y);
  return w;
}

describe('FPM regressions', () => {
  it('recover a prefill line (tokens → ms) and a decode line (KV tokens → ms) from exact samples', () => {
    const pre = windowOf(64, [256, 512, 1024, 2048, 4096].map((p) => [p, 0, 3 + 0.02 * p]));
    const m = fitPassTime([pre], 'prefill', 16)!;
    expect(m.intercept).toBeCloseTo(3, 9);
    expect(m.perPrefillToken).toBeCloseTo(0.02, 12);
    expect(m.perDecodeKvToken).toBe(0);
    const dec = windowOf(64, [1e3, 5e3, 2e4, 8e4].map((k) => [0, k, 5 + 1e-4 * k]));
    const d = fitPassTime([dec], 'decode', 16)!;
    expect(d.intercept).toBeCloseTo(5, 9);
    expect(d.perDecodeKvToken).toBeCloseTo(1e-4, 12);
  });

  it('fits the 2-D agg plane on a √bucket × √bucket grid', () => {
    const s: [number, number, number][] = [];
    for (const p of [0, 512, 2048, 8192]) for (const k of [0, 1e4, 5e4]) s.push([p, k, 2 + 0.03 * p + 2e-4 * k]);
    const m = fitPassTime([windowOf(64, s)], 'agg', 16)!;
    expect(m.intercept).toBeCloseTo(2, 9);
    expect(m.perPrefillToken).toBeCloseTo(0.03, 12);
    expect(m.perDecodeKvToken).toBeCloseTo(2e-4, 12);
  });

  it('bucketing: a flood of passes at one load weighs as one point, not as hundreds', () => {
    // 60 passes at 100 tokens measured 1 ms slow, 4 at spread loads exactly on the line.
    const s: [number, number, number][] = [];
    for (let i = 0; i < 60; i++) s.push([100, 0, 2 + 0.01 * 100 + 1]);
    for (const p of [1000, 2000, 3000, 4000]) s.push([p, 0, 2 + 0.01 * p]);
    const bucketed = fitPassTime([windowOf(64, s)], 'prefill', 16)!;
    // Plain least squares over all 64 samples, for comparison.
    const n = s.length;
    const mx = s.reduce((a, r) => a + r[0], 0) / n;
    const my = s.reduce((a, r) => a + r[2], 0) / n;
    const rawSlope = s.reduce((a, r) => a + (r[0] - mx) * (r[2] - my), 0) / s.reduce((a, r) => a + (r[0] - mx) ** 2, 0);
    // Bucket means: (100, 4) once and the four exact points.
    const bx = [100, 1000, 2000, 3000, 4000];
    const by = [4, 12, 22, 32, 42];
    const bmx = bx.reduce((a, v) => a + v) / 5;
    const bmy = by.reduce((a, v) => a + v) / 5;
    const bSlope = bx.reduce((a, v, i) => a + (v - bmx) * (by[i] - bmy), 0) / bx.reduce((a, v) => a + (v - bmx) ** 2, 0);
    expect(bucketed.perPrefillToken).toBeCloseTo(bSlope, 12);
    expect(Math.abs(bucketed.perPrefillToken - 0.01)).toBeLessThan(Math.abs(rawSlope - 0.01));
  });

  it('keeps only the last max_num_fpm_samples passes', () => {
    const w = new FpmWindow(4);
    for (let i = 0; i < 10; i++) w.add(i < 6 ? 100 : 1000 * i, 0, i < 6 ? 999 : 1 + 0.01 * 1000 * i);
    expect(w.size).toBe(4);
    const m = fitPassTime([w], 'prefill', 4)!;
    expect(m.perPrefillToken).toBeCloseTo(0.01, 12);
    expect(m.intercept).toBeCloseTo(1, 9);
  });

  it('never fits a negative slope, and a load without spread gives the mean pass time', () => {
    const m = fitPassTime([windowOf(8, [[100, 0, 10], [200, 0, 9], [300, 0, 8]])], 'prefill', 4)!;
    expect(m.perPrefillToken).toBe(0);
    expect(m.intercept).toBeCloseTo(9, 12);
    const flat = fitPassTime([windowOf(8, [[0, 500, 4], [0, 500, 6]])], 'decode', 4)!;
    expect(flat).toEqual({ intercept: 5, perPrefillToken: 0, perDecodeKvToken: 0 });
    expect(fitPassTime([new FpmWindow(4)], 'agg', 4)).toBeNull();
  });
});

describe('latency estimates at the current load', () => {
  const m = { intercept: 2, perPrefillToken: 0.02, perDecodeKvToken: 1e-4 };

  it('TTFT: the backlog plus the prompt in passes of at most the token budget', () => {
    // 20,000 tokens at 8192/pass: two full passes + one of 3616, each paying the intercept.
    expect(estimateTtftMs(m, 18_976, 1024, 8192)).toBeCloseTo(2 * (2 + 0.02 * 8192) + (2 + 0.02 * 3616), 9);
    expect(estimateTtftMs(m, 0, 1024, Infinity)).toBeCloseTo(2 + 0.02 * 1024, 12);
    // Agg passes also carry the decode batch.
    expect(estimateTtftMs(m, 0, 1024, 8192, 10_000)).toBeCloseTo(2 + 0.02 * 1024 + 1, 12);
    expect(predictPassMs(m, 0, 0)).toBe(2);
  });

  it('ITL: the pass time over the KV being decoded, per emitted token', () => {
    expect(estimateItlMs(m, 50_000)).toBeCloseTo(7, 12);
    expect(estimateItlMs(m, 50_000, 500, 1.7)).toBeCloseTo(17 / 1.7, 12);
  });
});

describe('load scaling step', () => {
  const sla = { ttftMs: 100, itlMs: 20, downSensitivity: 80 };
  const e = (ttftMs: number, itlMs: number) => ({ ttftMs, itlMs });

  it('prefill: up only when every engine is over the TTFT SLA; down only when every engine stays under SLA × sensitivity', () => {
    expect(loadScalingStep('prefill', [e(150, NaN), e(120, NaN)], [], sla)).toBe(1);
    expect(loadScalingStep('prefill', [e(150, NaN), e(90, NaN)], [e(200, NaN), e(120, NaN)], sla)).toBe(0);
    expect(loadScalingStep('prefill', [e(50, NaN), e(60, NaN)], [e(70, NaN), e(79, NaN)], sla)).toBe(-1);
    expect(loadScalingStep('prefill', [e(50, NaN), e(60, NaN)], [e(70, NaN), e(81, NaN)], sla)).toBe(0);
    // A single engine has no after-removal estimate: it never scales down.
    expect(loadScalingStep('prefill', [e(1, NaN)], [], sla)).toBe(0);
  });

  it('decode reads ITL; agg goes up on either latency and down only when both are comfortable', () => {
    expect(loadScalingStep('decode', [e(NaN, 25), e(NaN, 30)], [], sla)).toBe(1);
    expect(loadScalingStep('decode', [e(NaN, 5), e(NaN, 6)], [e(NaN, 10), e(NaN, 12)], sla)).toBe(-1);
    expect(loadScalingStep('agg', [e(150, 5), e(120, 5)], [], sla)).toBe(1);
    expect(loadScalingStep('agg', [e(10, 25), e(10, 21)], [], sla)).toBe(1);
    expect(loadScalingStep('agg', [e(150, 5), e(10, 25)], [], sla)).toBe(0);
    expect(loadScalingStep('agg', [e(10, 5), e(10, 5)], [e(20, 10), e(20, 15)], sla)).toBe(-1);
    expect(loadScalingStep('agg', [e(10, 5), e(10, 5)], [e(20, 10), e(90, 10)], sla)).toBe(0);
  });
});
