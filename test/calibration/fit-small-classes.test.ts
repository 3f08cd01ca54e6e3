// The replay-correction fit's fallback for an architecture class with too few rows in its (SKU, backend):
// it is not fitted on the other classes' rows. Its pass scale, admission lag and latency come from its own
// rows; the prefill factor from the same class on the same backend, SKUs pooled
// (src/calibration/fit.ts).
import { describe, expect, it } from 'vitest';
import { fitReplayOverheads, predictRaw, type RawReplay } from '../../src/calibration/fit.js';
import type { ArchitectureClass } from '../../src/model/architecture-class.js';

/** Rows whose measurement is exactly s·(TTFT₀(k)) + d and s·TPOT₀(k) (prefill 80 % of the raw TTFT). */
function rows(sku: string, arch: ArchitectureClass, n: number, s: number, k: number, d: number): RawReplay[] {
  return Array.from({ length: n }, (_, i) => {
    const ttft0 = 80 + 60 * i;
    const ttft2 = ttft0 * 1.8;
    const tpot0 = 8 + i;
    const tpot2 = tpot0 * 1.1;
    return {
      id: `${sku}-${arch}-${i}`,
      sku,
      backend: 'sglang',
      mode: 'agg' as const,
      arch,
      ttft0,
      tpot0,
      ttft2,
      tpot2,
      ttftMs: s * (ttft0 + (k - 1) * (ttft2 - ttft0)) + d,
      tpotMs: s * (tpot0 + (k - 1) * (tpot2 - tpot0)),
    };
  });
}

const median = (xs: number[]): number => {
  const v = [...xs].sort((a, b) => a - b);
  return (v[Math.floor((v.length - 1) / 2)] + v[Math.ceil((v.length - 1) / 2)]) / 2;
};

describe('replay fit: classes with too few rows', () => {
  // h200: 20 MLA-MoE rows wanting k = 0.6 and 8 dense rows wanting k = 1.5 (with their own pass scale
  // 1.1); b200: 20 dense rows on the same backend, k = 1.5, pass scale 1.0.
  const small = rows('h200_sxm', 'gqa-dense', 8, 1.1, 1.5, 40);
  const all = [...rows('h200_sxm', 'mla-moe', 20, 0.95, 0.6, 40), ...small, ...rows('b200_sxm', 'gqa-dense', 20, 1.0, 1.5, 40)];
  const ttftErr = (smallClasses: boolean): number => {
    const f = fitReplayOverheads(all, 12, 'all', [], true, smallClasses).get('h200_sxm/sglang')!;
    return median(small.map((r) => Math.abs(predictRaw(r, f).ttftMs / r.ttftMs - 1)));
  };

  it('gives the small class its own pass scale and its class’s backend-pooled prefill factor', () => {
    const f = fitReplayOverheads(all, 12, 'all').get('h200_sxm/sglang')!;
    const dense = f.byArchitecture?.['gqa-dense'];
    expect(dense?.rows).toBe(8);
    expect(dense!.passScale).toBeCloseTo(1.1, 2);
    expect(Math.abs(dense!.prefillScale - 1.5)).toBeLessThanOrEqual(0.15);
    // The MLA-MoE class has rows enough: its own fit.
    expect(f.byArchitecture?.['mla-moe']?.rows).toBe(20);
    expect(Math.abs(f.byArchitecture!['mla-moe']!.prefillScale - 0.6)).toBeLessThanOrEqual(0.1);
  });

  it('predicts the small class better than the (SKU, backend) fit over all classes does', () => {
    expect(ttftErr(true)).toBeLessThan(0.05);
    expect(ttftErr(false)).toBeGreaterThan(0.1);
  });

  it('a (SKU, backend) of one class keeps its single group fit', () => {
    const f = fitReplayOverheads(rows('h100_sxm', 'gqa-dense', 8, 1.05, 1.5, 40), 12, 'all').get('h100_sxm/sglang')!;
    expect(f.byArchitecture).toBeUndefined();
  });
});
