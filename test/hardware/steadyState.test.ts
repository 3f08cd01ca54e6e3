// The steady-state composition (burst, closed-loop prefill queue) and the pass-model pieces behind the
// e2e accuracy work: block-scaled checkpoints, host-bound kernel tables, multi-node collectives.
import { describe, expect, it } from 'vitest';
import { resolveModel } from '../../src/model/catalog.js';
import { loadSystem } from '../../src/hardware/systems.js';
import { loadCoefficients } from '../../src/hardware/perf/coefficients.js';
import { quantOf } from '../../src/hardware/perf/e2eCases.js';
import { checkpointScaling } from '../../src/model/checkpoint-scaling.js';
import { OpModel } from '../../src/hardware/perf/ops.js';
import { burstShareAt, combineSteadyState, meanBurstPasses, prefillResponseMs, type SteadyStateParts, type TtftFactors } from '../../src/hardware/perf/steadyState.js';

describe('initial burst', () => {
  it('counts the budget passes a burst request waits for its first token', () => {
    expect(meanBurstPasses(4, 1024, 8192)).toBe(1); // all four prompts fit one pass
    expect(meanBurstPasses(16, 1024, 8192)).toBe(1.5); // 8 in the first pass, 8 in the second
    expect(meanBurstPasses(4, 8192, 8192)).toBe(2.5); // one prompt per pass: (1+2+3+4)/4
    expect(meanBurstPasses(2, 15000, 8192)).toBe(3); // ⌈1.83⌉ = 2 and ⌈3.66⌉ = 4
  });
});

describe('closed-loop prefill queue', () => {
  it('is the own prefill at low load and b·service − think when prompts outrun the budget', () => {
    expect(prefillResponseMs(1, 40, 40, 1000)).toBe(40);
    expect(prefillResponseMs(4, 40, 10, 100_000)).toBeCloseTo(40, 0);
    const saturated = prefillResponseMs(200, 10, 10, 100);
    expect(saturated).toBeGreaterThan(0.95 * (200 * 10 - 100));
    expect(saturated).toBeLessThan(1.05 * (200 * 10 - 100));
    let prev = 0;
    for (const b of [1, 2, 8, 32, 128]) {
      const r = prefillResponseMs(b, 10, 10, 500);
      expect(r).toBeGreaterThanOrEqual(prev);
      prev = r;
    }
  });

  it('composes TTFT from the burst share: all-burst waits for the whole burst, none only for its own prefill', () => {
    const p: SteadyStateParts = {
      b: 16, concurrency: 16, chunks: 1, mixedFraction: 0.015, decodeMs: 10, mixedMs: 50, prefillOneMs: 48, prefillBatchMs: 400,
      burstPassMs: 300, burstPasses: 1.5, burstShareOfPass: 0.125, steps: 1023,
    };
    const t = (burstShare: number): TtftFactors => ({ burstShare, burstRequests: 0, prefillScale: 1, fixedMs: 20 });
    const none = combineSteadyState(p, 1, t(0));
    const all = combineSteadyState(p, 1, t(1));
    expect(all.ttftMs).toBeCloseTo(20 + 1.5 * 300, 6);
    // 10 s of decoding between prompts: 6 % prefill load, a few ms of queueing on top of the own prefill.
    expect(none.ttftMs).toBeGreaterThan(20 + 50 + 5);
    expect(none.ttftMs).toBeLessThan(1.05 * (20 + 50 + 5));
    expect(combineSteadyState(p, 1, t(0.1)).ttftMs).toBeCloseTo(0.9 * none.ttftMs + 0.1 * all.ttftMs, 6);
    expect(none.tpotMs).toBeCloseTo(10 + 0.015 * 40, 6);
  });

  it('weighs the burst by concurrency / burstRequests up to burstShare, and scales only the prefill work', () => {
    expect(burstShareAt(16, 0.3, 0)).toBe(0.3);
    expect(burstShareAt(16, 0.3, 320)).toBeCloseTo(0.05, 12);
    expect(burstShareAt(256, 0.3, 320)).toBe(0.3);
    const p: SteadyStateParts = {
      b: 16, concurrency: 16, chunks: 1, mixedFraction: 0.015, decodeMs: 10, mixedMs: 50, prefillOneMs: 48, prefillBatchMs: 400,
      burstPassMs: 300, burstPasses: 1.5, burstShareOfPass: 0.125, steps: 1023,
    };
    const base: TtftFactors = { burstShare: 0.3, burstRequests: 320, prefillScale: 1, fixedMs: 20 };
    const none = combineSteadyState(p, 1, { ...base, burstShare: 0 }).ttftMs;
    const all = combineSteadyState(p, 1, { ...base, burstShare: 1, burstRequests: 0 }).ttftMs;
    expect(combineSteadyState(p, 1, base).ttftMs).toBeCloseTo(0.95 * none + 0.05 * all, 6);
    // Twice the prefill work: the burst wait doubles; the own mixed pass grows by its prefill part only.
    const doubled = combineSteadyState(p, 1, { ...base, burstShare: 1, burstRequests: 0, prefillScale: 2 });
    expect(doubled.ttftMs).toBeCloseTo(20 + 2 * 1.5 * 300, 6);
    const own = combineSteadyState(p, 1, { ...base, burstShare: 0, prefillScale: 2 }).ttftMs;
    expect(own).toBeGreaterThan(20 + 10 + 2 * 40 + 5);
    expect(own).toBeLessThan(1.1 * (20 + 10 + 2 * 40 + 5));
    // TPOT never depends on the TTFT factors.
    expect(doubled.tpotMs).toBe(combineSteadyState(p, 1, base).tpotMs);
  });
});

describe('pass-model inputs', () => {
  it('serves an fp8-labelled row of a block-scaled checkpoint with block-scaled kernels', () => {
    const r1 = resolveModel('deepseek-ai/DeepSeek-R1');
    const llama = resolveModel('meta-llama/Llama-3.1-70B');
    expect(r1.weightQuant).toBe('fp8_block');
    expect(checkpointScaling('fp8', r1.weightQuant)).toBe('fp8_block');
    expect(quantOf('fp8', 'fp8', r1.weightQuant)).toBe('fp8_block');
    expect(quantOf('nvfp4', 'fp4', r1.weightQuant)).toBe('nvfp4');
    expect(quantOf('fp8', 'fp8', llama.weightQuant)).toBe('fp8');
    expect(quantOf('', 'bf16', r1.weightQuant)).toBe('bf16');
    expect(quantOf('int4_wo', 'int4', r1.weightQuant)).toBeUndefined();
  });

  it('leaves a host-bound GEMM table unfitted and falls back to the next dtype curve', () => {
    const coeff = loadCoefficients('h200_sxm', 'vllm');
    expect(coeff.curves.has('gemm/fp8_block')).toBe(false);
    expect(coeff.curves.has('gemm/fp8')).toBe(true);
    const ops = new OpModel(coeff, loadSystem('h200_sxm'));
    expect(ops.gemm(8, 2048, 3072, 'fp8_block')).toBe(ops.gemm(8, 2048, 3072, 'fp8'));
    // The per-call host floor (≥ 55 µs) is gone: a small decode GEMM streams its weights in microseconds.
    expect(ops.gemm(8, 2048, 3072, 'fp8_block')).toBeLessThan(25e-6);
  });

  it('adds a hierarchical inter-node phase to collectives beyond one NVLink domain only', () => {
    const coeff = loadCoefficients('b200_sxm', 'sglang');
    const b200 = loadSystem('b200_sxm');
    const ops = new OpModel(coeff, b200);
    const bytes = 8192 * 7168 * 2;
    const eight = ops.allReduce(bytes, 8);
    const sixteen = ops.allReduce(bytes, 16);
    // Beyond a node NCCL replaces the custom all-reduce; each GPU sends its 1/8 share of 2·bytes
    // half-way round two nodes, in two inter-node steps (test/hardware/multiNodeComm.test.ts).
    expect(sixteen - ops.collective('all_reduce', bytes, 8)).toBeCloseTo(((2 * bytes) / 8) * 0.5 / b200.interNodeBwBps + 2 * b200.p2pLatencyS, 9);
    expect(sixteen).toBeGreaterThan(eight);
    expect(ops.collective('all_gather', bytes, 16)).toBeGreaterThan(ops.collective('all_gather', bytes, 8));
    // A GB200 rack is one NVLink domain: 16 GPUs cost what the measured 8-GPU curve says.
    const rack = new OpModel(coeff, loadSystem('gb200'));
    expect(rack.allReduce(bytes, 16)).toBe(rack.allReduce(bytes, 8));
  });
});
