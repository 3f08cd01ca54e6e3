import { describe, expect, it } from 'vitest';
import { InputError, NoPerfDatabase } from '../../src/errors.js';
import type { ModelArch, WeightQuant } from '../../src/model/arch.js';
import { resolveModel } from '../../src/model/catalog.js';
import { WEIGHT_BYTES, weightBytesPerGpu, weightLayout } from '../../src/model/weights.js';
import { loadSystem } from '../../src/hardware/systems.js';
import type { PassWork } from '../../src/hardware/pass.js';
import { hasPerfDatabase } from '../../src/hardware/perf/coefficients.js';
import { createEnginePerf } from '../../src/hardware/perf/engine.js';
import type { ParallelShape } from '../../src/parallel/shape.js';

const shape = (tp: number, extra: Partial<ParallelShape> = {}): ParallelShape => ({ tp, pp: 1, attention_dp: 1, moe_tp: tp, moe_ep: 1, ...extra });
const decode = (b: number, ctx: number): PassWork => ({ prefillSeqs: 0, prefillTokens: 0, prefillAttnPairs: 0, decodeSeqs: b, decodeContextSum: b * ctx });
const prefill = (b: number, isl: number): PassWork => ({ prefillSeqs: b, prefillTokens: b * isl, prefillAttnPairs: (b * isl * isl) / 2, decodeSeqs: 0, decodeContextSum: 0 });

describe('coefficients availability', () => {
  it('raises NoPerfDatabase for SKUs without fitted data and reports availability', () => {
    const llama = resolveModel('meta-llama/Llama-3.1-8B-Instruct');
    for (const sku of ['gb200', 'a100_sxm']) {
      expect(hasPerfDatabase(sku, 'vllm')).toBe(false);
      expect(() => createEnginePerf({ model: llama, system: loadSystem(sku), backend: 'vllm', shape: shape(1), quant: 'bf16', kvDtype: 'bf16' })).toThrow(NoPerfDatabase);
    }
    for (const sku of ['h100_sxm', 'h200_sxm', 'b200_sxm']) for (const b of ['vllm', 'sglang', 'trtllm'] as const) expect(hasPerfDatabase(sku, b)).toBe(true);
  });

  it('rejects nvfp4 on a GPU without FP4 tensor cores', () => {
    const llama = resolveModel('meta-llama/Llama-3.1-8B-Instruct');
    expect(() => createEnginePerf({ model: llama, system: loadSystem('h100_sxm'), backend: 'trtllm', shape: shape(1), quant: 'nvfp4', kvDtype: 'bf16' })).toThrow(InputError);
  });
});

describe('engine pass composition', () => {
  const llama = resolveModel('meta-llama/Llama-3.1-8B-Instruct');
  const perf = createEnginePerf({ model: llama, system: loadSystem('h200_sxm'), backend: 'vllm', shape: shape(1), quant: 'bf16', kvDtype: 'bf16' });

  it('grows with batch, context and prompt tokens; empty pass costs nothing', () => {
    expect(perf.passMs({ prefillSeqs: 0, prefillTokens: 0, prefillAttnPairs: 0, decodeSeqs: 0, decodeContextSum: 0 })).toBe(0);
    expect(perf.passMs(decode(64, 2048))).toBeGreaterThan(perf.passMs(decode(8, 2048)));
    expect(perf.passMs(decode(32, 16384))).toBeGreaterThan(perf.passMs(decode(32, 1024)));
    expect(perf.passMs(prefill(1, 8192))).toBeGreaterThan(perf.passMs(prefill(1, 1024)));
    expect(perf.passMs(decode(16, 1000))).toBe(perf.passMs(decode(16, 1000))); // memoised, deterministic
  });

  it('charges prefix reuse by attention pairs: a cached prefix makes the same new tokens cheaper than a long fresh prompt', () => {
    const fresh: PassWork = { prefillSeqs: 1, prefillTokens: 8192, prefillAttnPairs: (8192 * 8192) / 2, decodeSeqs: 0, decodeContextSum: 0 };
    // 1024 new tokens on top of a 7168-token cached prefix.
    const reuse: PassWork = { prefillSeqs: 1, prefillTokens: 1024, prefillAttnPairs: 1024 * (7168 + 512), decodeSeqs: 0, decodeContextSum: 0 };
    const short: PassWork = { prefillSeqs: 1, prefillTokens: 1024, prefillAttnPairs: (1024 * 1024) / 2, decodeSeqs: 0, decodeContextSum: 0 };
    const br = perf.breakdown(reuse);
    expect(perf.passMs(reuse)).toBeLessThan(perf.passMs(fresh));
    expect(br.prefillAttnMs).toBeGreaterThan(perf.breakdown(short).prefillAttnMs);
  });

  it('MoE: tokens from every attention-DP rank reach the experts', () => {
    const ds = resolveModel('deepseek-ai/DeepSeek-R1');
    const sys = loadSystem('b200_sxm');
    const dep1 = createEnginePerf({ model: ds, system: sys, backend: 'sglang', shape: { tp: 1, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 8 }, quant: 'fp8_block', kvDtype: 'bf16' });
    const dep8 = createEnginePerf({ model: ds, system: sys, backend: 'sglang', shape: { tp: 1, pp: 1, attention_dp: 8, moe_tp: 1, moe_ep: 8 }, quant: 'fp8_block', kvDtype: 'bf16' });
    expect(dep8.breakdown(decode(64, 2048)).tokenOpsMs).toBeGreaterThan(dep1.breakdown(decode(64, 2048)).tokenOpsMs);
  });
});

/** Routed-expert bytes on one GPU (never all read by a batch-1 decode). */
function routedBytes(m: ModelArch, s: ParallelShape, q: WeightQuant): number {
  if (m.numExperts === 0) return 0;
  return ((m.numLayers - m.firstKDense) * m.numExperts * 3 * m.hiddenSize * m.moeIntermediateSize * WEIGHT_BYTES[q]) / (s.moe_tp * s.moe_ep);
}

describe('physics', () => {
  const cases: { model: string; sku: string; tp: number; quant: WeightQuant; ep?: number }[] = [
    { model: 'meta-llama/Llama-3.1-8B-Instruct', sku: 'h100_sxm', tp: 1, quant: 'bf16' },
    { model: 'meta-llama/Llama-3.1-70B', sku: 'h200_sxm', tp: 4, quant: 'fp8' },
    { model: 'Qwen/Qwen3-32B', sku: 'b200_sxm', tp: 2, quant: 'nvfp4' },
    { model: 'deepseek-ai/DeepSeek-R1', sku: 'h200_sxm', tp: 8, quant: 'fp8_block' },
    { model: 'openai/gpt-oss-120b', sku: 'b200_sxm', tp: 4, quant: 'mxfp4', ep: 4 },
    // MXFP4 experts on Hopper: weight-only w4a16 kernels, bf16 attention.
    { model: 'openai/gpt-oss-120b', sku: 'h100_sxm', tp: 2, quant: 'mxfp4' },
    { model: 'openai/gpt-oss-120b', sku: 'h200_sxm', tp: 1, quant: 'mxfp4' },
    { model: 'openai/gpt-oss-20b', sku: 'h100_sxm', tp: 1, quant: 'mxfp4' },
  ];
  for (const c of cases) {
    for (const backend of ['vllm', 'sglang', 'trtllm'] as const) {
      it(`${c.model} on ${c.sku}/${backend}: decode at batch 1 ≥ weights/HBM, prefill ≥ FLOPs/peak`, () => {
        const m = resolveModel(c.model);
        const system = loadSystem(c.sku);
        const s = c.ep ? shape(c.tp, { moe_tp: c.tp / c.ep, moe_ep: c.ep }) : shape(c.tp);
        const perf = createEnginePerf({ model: m, system, backend, shape: s, quant: c.quant, kvDtype: 'bf16' });
        const vocab = (m.vocabSize * m.hiddenSize * 2) / c.tp;
        const layout = weightLayout(m, c.quant);
        const total = weightBytesPerGpu(m, s, layout);
        // Batch-1 decode reads at least every non-expert weight except the input embedding table,
        // plus top-k experts' worth of the routed weights (each token visits k experts per layer).
        const routed = routedBytes(m, s, layout.moe);
        const activeExperts = m.numExperts > 0 ? (routed * Math.min(m.topK, m.numExperts / s.moe_ep)) / (m.numExperts / s.moe_ep) : 0;
        const streamed = total - vocab - routed + activeExperts;
        expect(perf.passMs(decode(1, 1))).toBeGreaterThanOrEqual((streamed / system.memBwBps) * 1e3);
        // Prefill of T tokens does at least 2·T FLOPs per non-expert, non-vocab parameter.
        const params = (total - 2 * vocab - routed) / WEIGHT_BYTES[layout.linear];
        const peak = layout.linear === 'nvfp4' ? system.flops.fp4! : layout.linear === 'bf16' ? system.flops.bf16 : system.flops.fp8!;
        const t = 8192;
        expect(perf.passMs(prefill(1, t))).toBeGreaterThanOrEqual(((2 * t * params) / peak) * 1e3);
      });
    }
  }
});
