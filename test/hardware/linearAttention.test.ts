import { describe, expect, it } from 'vitest';
import type { ModelArch } from '../../src/model/arch.js';
import { resolveModel } from '../../src/model/catalog.js';
import { loadSystem } from '../../src/hardware/systems.js';
import type { PassWork } from '../../src/hardware/pass.js';
import { createEnginePerf } from '../../src/hardware/perf/engine.js';
import { KERNELS_ONLY_OVERHEAD } from '../../src/hardware/perf/overheadFit.js';
import type { ParallelShape } from '../../src/parallel/shape.js';

// Gated DeltaNet (Qwen3.5) decode cost: a per-sequence fp32 recurrent state read and written every
// step (memory bound, linear in the batch) plus the GDN projections (weight bound, not GQA-shaped).
const shape: ParallelShape = { tp: 4, pp: 1, attention_dp: 1, moe_tp: 4, moe_ep: 1 };
const decode = (b: number, ctx: number): PassWork => ({ prefillSeqs: 0, prefillTokens: 0, prefillAttnPairs: 0, decodeSeqs: b, decodeContextSum: b * ctx });
const system = loadSystem('b200_sxm');
const perfOf = (model: ModelArch) =>
  createEnginePerf({ model, system, backend: 'sglang', shape, quant: 'fp8_block', moeQuant: 'fp8_block', kvDtype: 'bf16', overhead: { ...KERNELS_ONLY_OVERHEAD, kernelScale: 1, launchCredit: 0 } });

describe('Gated DeltaNet decode cost', () => {
  const q35 = resolveModel('Qwen/Qwen3.5-397B-A17B');
  const la = q35.linearAttention!;
  // Same model without its linear-attention layers: the difference in decode attention is the state pass.
  const softmaxOnly: ModelArch = { ...q35, numLayers: q35.numLayers - la.layers, linearAttention: undefined };
  const stateMs = (b: number): number => perfOf(q35).breakdown(decode(b, 1536)).decodeAttnMs - perfOf(softmaxOnly).breakdown(decode(b, 1536)).decodeAttnMs;

  it('reads and writes the fp32 state of every sequence each step (mamba_ssm_dtype float32)', () => {
    const b = 256;
    const fp32StateBytes = (la.numValueHeads / shape.tp) * la.keyHeadDim * la.valueHeadDim * 4;
    const solMs = (1e3 * la.layers * 2 * b * fp32StateBytes) / system.memBwBps;
    expect(stateMs(b)).toBeGreaterThanOrEqual(solMs);
    expect(stateMs(b)).toBeLessThan(2 * solMs);
  });

  it('grows linearly with the batch', () => {
    const r = stateMs(256) / stateMs(64);
    expect(r).toBeGreaterThan(3.2);
    expect(r).toBeLessThanOrEqual(4);
  });

  it('costs the GDN projections by their own widths, not GQA-shaped ones', () => {
    const fewerValueHeads: ModelArch = { ...q35, linearAttention: { ...la, numValueHeads: la.numValueHeads / 2 } };
    const tok = (m: ModelArch): number => perfOf(m).breakdown(decode(1, 1536)).tokenOpsMs;
    expect(tok(q35)).toBeGreaterThan(tok(fewerValueHeads));
  });
});
