// The launch credit: decode passes replay CUDA graphs, so the engine does not pay the share
// `launchCredit` of each op's per-call floor (the fastest call its table recorded) — never below SOL.
import { describe, expect, it } from 'vitest';
import { resolveModel } from '../../src/model/catalog.js';
import { loadSystem } from '../../src/hardware/systems.js';
import type { PassWork } from '../../src/hardware/pass.js';
import { fitCurve } from '../../src/hardware/perf/calibration.js';
import { loadCoefficients } from '../../src/hardware/perf/coefficients.js';
import { createEnginePerf } from '../../src/hardware/perf/engine.js';
import { OpModel } from '../../src/hardware/perf/ops.js';
import { KERNELS_ONLY_OVERHEAD, fitOverhead, predictCase, type RawCase } from '../../src/hardware/perf/overheadFit.js';
import { gemmSol } from '../../src/hardware/perf/roofline.js';
import type { SteadyStateParts } from '../../src/hardware/perf/steadyState.js';
import type { Sample } from '../../src/hardware/perf/families.js';

const decode = (b: number, ctx: number): PassWork => ({ prefillSeqs: 0, prefillTokens: 0, prefillAttnPairs: 0, decodeSeqs: b, decodeContextSum: b * ctx });
const mixed = (b: number, ctx: number, chunk: number): PassWork => ({ prefillSeqs: 1, prefillTokens: chunk, prefillAttnPairs: (chunk * chunk) / 2, decodeSeqs: b, decodeContextSum: b * ctx });

describe('per-call floors of the kernel tables', () => {
  it('fitCurve records the fastest measured call of the group', () => {
    const samples: Sample[] = [];
    for (let m = 0; m < 12; m++) samples.push({ group: 'g', x: [m], sol: 1e-6 * 2 ** m, latency: 4e-6 + 1e-6 * 2 ** m, sweep: `s${m % 5}` });
    const fit = fitCurve([{ lo: 0, step: 1, n: 12 }], samples);
    expect(fit.floorS).toBeCloseTo(5e-6, 9);
  });

  it('every fitted curve in the committed coefficients carries its floor', () => {
    const c = loadCoefficients('h100_sxm', 'vllm');
    expect(c.floors.size).toBe(c.curves.size);
    for (const [key, floor] of c.floors) {
      expect(floor, key).toBeGreaterThan(0);
      expect(floor, key).toBeLessThan(1e-3);
    }
  });
});

describe('launch credit in the op model', () => {
  const sys = loadSystem('b200_sxm');
  const coeff = loadCoefficients('b200_sxm', 'sglang');
  const floor = coeff.floors.get('gemm/fp8_block')!;

  it('takes the credited share of the floor off small ops and never goes below SOL', () => {
    const none = new OpModel(coeff, sys, 1, 0);
    const half = new OpModel(coeff, sys, 1, 0.5);
    const full = new OpModel(coeff, sys, 1, 1);
    // A tiny decode GEMM is floor-dominated: the credit removes (nearly) the credited share.
    const t0 = none.gemm(4, 1536, 7168, 'fp8_block');
    expect(t0).toBeGreaterThan(floor);
    expect(half.gemm(4, 1536, 7168, 'fp8_block')).toBeCloseTo(t0 - 0.5 * floor, 9);
    const sol = gemmSol(coeff.file.reference, 4, 1536, 7168, 'fp8_block');
    expect(full.gemm(4, 1536, 7168, 'fp8_block')).toBeGreaterThanOrEqual(sol);
    // A large GEMM loses the same absolute floor, a few per cent of its time.
    const big0 = none.gemm(8192, 7168, 7168, 'fp8_block');
    expect(big0 - full.gemm(8192, 7168, 7168, 'fp8_block')).toBeCloseTo(floor, 9);
    expect(floor / big0).toBeLessThan(0.05);
    // Element-wise ops lose the credited share of their launch constant.
    expect(none.elementwise(4096) - full.elementwise(4096)).toBeCloseTo(sys.elementwiseLatencyS, 9);
  });

  it('applies to decode-only (CUDA-graph) passes, not to passes that carry prefill', () => {
    const model = resolveModel('deepseek-ai/DeepSeek-R1');
    const shape = { tp: 8, pp: 1, attention_dp: 1, moe_tp: 8, moe_ep: 1 };
    const mk = (launchCredit: number) => createEnginePerf({ model, system: sys, backend: 'sglang', shape, quant: 'fp8_block', kvDtype: 'bf16', overhead: { ...KERNELS_ONLY_OVERHEAD, launchCredit } });
    const eager = mk(0);
    const graph = mk(1);
    expect(graph.passMs(decode(4, 2048))).toBeLessThan(0.9 * eager.passMs(decode(4, 2048)));
    expect(graph.passMs(mixed(4, 2048, 1024))).toBe(eager.passMs(mixed(4, 2048, 1024)));
  });
});

describe('launch credit in the overhead fit', () => {
  it('recovers a credit from cases whose decode time depends on it, and predicts with it', () => {
    // Synthetic engine: decode = kernelScale · (kernel − credit · floors); floors are a case property.
    const truth = { kernelScale: 0.9, passMs: 1, perLayerMs: 0.01, prefillInterleave: 1, burstShare: 0.2, ttftFixedMs: 30, burstRequests: 0, prefillScale: 1, launchCredit: 0.75 };
    const cases: RawCase[] = [];
    for (let i = 0; i < 45; i++) {
      const kernel = 4 + (i % 9) * 3;
      const floors = 0.5 + ((i * 7) % 10) * 0.4; // floor-heavy and floor-light cases
      const layers = [32, 61, 80][i % 3];
      const partsAt = (k: number, c: number): SteadyStateParts => {
        const d = k * (kernel - c * floors);
        return { b: 8, concurrency: 8, chunks: 1, mixedFraction: 0.1, decodeMs: d, mixedMs: d + 5 * k, prefillOneMs: 20 * k, prefillBatchMs: 0, burstPassMs: 20 * k, burstPasses: 1, burstShareOfPass: 1, steps: 500 };
      };
      const c: RawCase = { layers, parts: partsAt(1, 0), tpotMs: 0, ttftMs: 0, partsAt };
      const y = predictCase(c, truth);
      cases.push({ ...c, tpotMs: y.tpotMs, ttftMs: y.ttftMs });
    }
    const fit = fitOverhead(cases);
    expect(fit.tpotMedianErr).toBeLessThan(0.01);
    expect(fit.launchCredit).toBeGreaterThanOrEqual(0.6);
    expect(fit.launchCredit).toBeLessThanOrEqual(0.9);
  });

  it('keeps the credit at 0 when it does not pay for itself (no per-call floors in the cases)', () => {
    const truth = { kernelScale: 1.1, passMs: 0.5, perLayerMs: 0.02, prefillInterleave: 1, burstShare: 0.2, ttftFixedMs: 30, burstRequests: 0, prefillScale: 1 };
    const cases: RawCase[] = [];
    for (let i = 0; i < 30; i++) {
      const kernel = 4 + (i % 7) * 3;
      const partsAt = (k: number): SteadyStateParts => ({ b: 8, concurrency: 8, chunks: 1, mixedFraction: 0.1, decodeMs: k * kernel, mixedMs: k * (kernel + 5), prefillOneMs: 20 * k, prefillBatchMs: 0, burstPassMs: 20 * k, burstPasses: 1, burstShareOfPass: 1, steps: 500 });
      const c: RawCase = { layers: 40 + (i % 3) * 20, parts: partsAt(1), tpotMs: 0, ttftMs: 0, partsAt };
      const y = predictCase(c, truth);
      cases.push({ ...c, tpotMs: y.tpotMs, ttftMs: y.ttftMs });
    }
    expect(fitOverhead(cases).launchCredit).toBe(0);
  });
});
