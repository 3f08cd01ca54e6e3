import { describe, expect, it } from 'vitest';
import { createEnginePerf } from '../../../src/hardware/perf/engine.js';
import { loadSystem } from '../../../src/hardware/systems.js';
import { resolveModel } from '../../../src/model/catalog.js';
import { InputError } from '../../../src/errors.js';
import { aggEngineRps, decodeEngineRps, prefillEngineRps, type CapacityQuery } from '../../../src/replay/planner/engine-capacity.js';
import { clampToGpuBudget } from '../../../src/replay/planner/gpu-budget.js';
import { plannerSettingsOf } from '../../../src/replay/planner/settings.js';
import { engine, linearPerf } from '../fixture.js';

const goodput = { target: 'goodput', sla: { ttft_ms: 300, itl_ms: 25 } };

describe('planner settings', () => {
  it('expands preset ids and carries the budget, floor and SLA', () => {
    const s = plannerSettingsOf(
      { planner_scaling_policy: 'hybrid_180_5', planner_fpm_sampling: 'small', planner_load_sensitivity: 'conservative', min_endpoint: 2, max_gpu_budget: 16, min_gpu_budget: 4 },
      goodput,
    );
    expect(s).toMatchObject({
      throughputScaling: true,
      loadScaling: true,
      throughputIntervalMs: 180_000,
      loadIntervalMs: 5_000,
      optimizationTarget: 'sla',
      maxFpmSamples: 32,
      fpmBucketSize: 4,
      downSensitivity: 90,
      minObservations: 8,
      minEndpoint: 2,
      maxGpuBudget: 16,
      minGpuBudget: 4,
      ttftMs: 300,
      itlMs: 25,
      predictorLabel: 'constant_last',
    });
  });

  it('the materialized (unrolled) fields win over the preset ids', () => {
    const s = plannerSettingsOf(
      {
        planner_scaling_policy: 'load_180_5',
        scaling_policy: { enable_throughput_scaling: false, enable_load_scaling: true, throughput_adjustment_interval_seconds: 180, load_adjustment_interval_seconds: 7 },
        fpm_sampling: { max_num_fpm_samples: 50, fpm_sample_bucket_size: 9 },
        load_sensitivity: { load_scaling_down_sensitivity: 60, load_min_observations: 2 },
        load_predictor: 'kalman_default_raw',
        load_predictor_spec: { load_predictor: 'kalman', load_predictor_log1p: false, kalman_q_level: 1, kalman_q_trend: 0.1, kalman_r: 10, kalman_min_points: 5 },
      },
      goodput,
    );
    expect(s).toMatchObject({ loadIntervalMs: 7000, maxFpmSamples: 50, fpmBucketSize: 9, downSensitivity: 60, minObservations: 2, predictorLabel: 'kalman_default_raw' });
    expect(s.predictor.load_predictor).toBe('kalman');
  });

  it("accepts a composite as its dict's label (sorted-key JSON), as optimizer trials record it", () => {
    const s = plannerSettingsOf(
      {
        planner_scaling_policy: '{"enable_load_scaling":true,"enable_throughput_scaling":false,"load_adjustment_interval_seconds":10,"throughput_adjustment_interval_seconds":180}',
        planner_fpm_sampling: '{"fpm_sample_bucket_size":4,"max_num_fpm_samples":20}',
      },
      goodput,
    );
    expect(s).toMatchObject({ loadScaling: true, loadIntervalMs: 10_000, maxFpmSamples: 20, fpmBucketSize: 4 });
  });

  it('throughput scaling needs the "sla" target; load scaling without an SLA uses 500 ms / 50 ms (Clarification B)', () => {
    const t = plannerSettingsOf({ planner_scaling_policy: 'hybrid_600_5' }, { target: 'throughput' });
    expect(t.throughputScaling).toBe(false);
    expect(t.loadScaling).toBe(true);
    expect([t.ttftMs, t.itlMs]).toEqual([500, 50]);
    expect(plannerSettingsOf({ planner_scaling_policy: 'throughput_180_5' }, { target: 'e2e_latency' }).throughputScaling).toBe(false);
    const e2eOnly = plannerSettingsOf({ planner_scaling_policy: 'throughput_180_5' }, { target: 'goodput', sla: { e2e_ms: 5000 } });
    expect(e2eOnly.throughputScaling).toBe(false);
    expect(plannerSettingsOf({}, goodput)).toMatchObject({ throughputScaling: false, loadScaling: false, minEndpoint: 1, maxGpuBudget: Infinity });
  });

  it('rejects illegal planner values with the field named', () => {
    const load = { planner_scaling_policy: 'load_180_5' };
    expect(() => plannerSettingsOf({ ...load, fpm_sampling: { max_num_fpm_samples: 64, fpm_sample_bucket_size: 10 } }, goodput)).toThrow(/perfect square/);
    expect(() => plannerSettingsOf({ ...load, load_sensitivity: { load_scaling_down_sensitivity: 120, load_min_observations: 3 } }, goodput)).toThrow(InputError);
    expect(() =>
      plannerSettingsOf({ planner_scaling_policy: { enable_throughput_scaling: false, enable_load_scaling: true, throughput_adjustment_interval_seconds: 1, load_adjustment_interval_seconds: 0 } }, goodput),
    ).toThrow(/load_adjustment_interval_seconds/);
    expect(() => plannerSettingsOf({ planner_scaling_policy: 'sometimes' }, goodput)).toThrow(/planner_scaling_policy/);
    expect(() => plannerSettingsOf({ ...load, min_gpu_budget: 9, max_gpu_budget: 8 }, goodput)).toThrow(/min_gpu_budget/);
  });
});

describe('GPU budget clamp', () => {
  it('over budget: every role shrinks by the same factor, then the largest consumer is trimmed', () => {
    // 10×1 + 6×2 = 22 GPUs into 8: ⌊3.6⌋ = 3, ⌊2.2⌋ = 2 → 7 GPUs.
    expect(clampToGpuBudget([{ replicas: 10, gpusPerWorker: 1 }, { replicas: 6, gpusPerWorker: 2 }], 1, 0, 8)).toEqual([3, 2]);
    expect(clampToGpuBudget([{ replicas: 9, gpusPerWorker: 1 }], 1, 0, 8)).toEqual([8]);
  });

  it('the replica floor beats the budget; under min_gpu_budget the smallest consumer grows', () => {
    expect(clampToGpuBudget([{ replicas: 1, gpusPerWorker: 4 }, { replicas: 1, gpusPerWorker: 4 }], 1, 0, 4)).toEqual([1, 1]);
    expect(clampToGpuBudget([{ replicas: 0, gpusPerWorker: 1 }], 2, 0, 8)).toEqual([2]);
    expect(clampToGpuBudget([{ replicas: 1, gpusPerWorker: 1 }, { replicas: 1, gpusPerWorker: 2 }], 1, 6, 10)).toEqual([3, 2]);
    // Growing may not cross the budget.
    expect(clampToGpuBudget([{ replicas: 1, gpusPerWorker: 4 }], 1, 6, 7)).toEqual([1]);
  });
});

describe('engine capacity at the SLA (perf model)', () => {
  // Analytic fixture: pass = 2 + 0.02·prefill + 1e-6·attn pairs + 0.05·decode seqs + 2e-5·context.
  const q = (role: 'agg' | 'prefill' | 'decode', over: Partial<CapacityQuery> = {}): CapacityQuery => ({
    perf: linearPerf(),
    engine: engine(role),
    isl: 1000,
    osl: 100,
    prefixHitRate: 0,
    ttftMs: 200,
    itlMs: 20,
    ...over,
  });

  it('prefill: the largest batch whose two passes fit the TTFT SLA, discounted by the prefix-hit rate', () => {
    // k prompts: pass = 2 + 20k + 0.5k ≤ 100 → k = 4 (84 ms) → 4/84 ms.
    expect(prefillEngineRps(q('prefill'))).toBeCloseTo(4000 / 84, 9);
    // A loose SLA is capped by the token budget: ⌊8192/1000⌋ = 8 prompts (166 ms).
    expect(prefillEngineRps(q('prefill', { ttftMs: 10_000 }))).toBeCloseTo(8000 / 166, 9);
    // Half the prompt cached: 500 new tokens attending over 500 cached: pass = 2 + 10.375k → k = 9.
    expect(prefillEngineRps(q('prefill', { prefixHitRate: 0.5 }))).toBeCloseTo(9000 / (2 + 9 * 10.375), 9);
  });

  it('decode: the largest batch at context ISL + OSL/2 within the ITL SLA, OSL steps per request', () => {
    // ITL(b) = 2 + (0.05 + 2e-5·1050)·b ≤ 20 → b = 253.
    const itl = 2 + 0.071 * 253;
    expect(decodeEngineRps(q('decode'))).toBeCloseTo((253 * 1000) / (100 * itl), 9);
    // KV room caps the batch: 50 requests of 1100 tokens.
    expect(decodeEngineRps(q('decode', { engine: engine('decode', { kvCapacityTokensPerRank: 55_000 }) }))).toBeCloseTo((50 * 1000) / (100 * (2 + 0.071 * 50)), 9);
  });

  it('agg: both bounds must hold, so it serves less than either specialised engine', () => {
    const agg = aggEngineRps(q('agg'));
    expect(agg).toBeGreaterThan(0);
    expect(agg).toBeLessThan(decodeEngineRps(q('decode')));
    expect(aggEngineRps(q('agg', { itlMs: 40 }))).toBeGreaterThan(agg);
  });

  it('on the real perf model (Llama-3.1-8B, H100 SXM): looser SLAs and prefix hits buy capacity', () => {
    const model = resolveModel('meta-llama/Llama-3.1-8B-Instruct');
    const perf = createEnginePerf({ model, system: loadSystem('h100_sxm'), backend: 'vllm', shape: { tp: 1, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 1 }, quant: model.weightQuant, kvDtype: model.kvCacheDtype });
    const real = (role: 'agg' | 'prefill' | 'decode', over: Partial<CapacityQuery> = {}) => q(role, { perf, engine: engine(role, { kvCapacityTokensPerRank: 400_000 }), ttftMs: 500, itlMs: 30, ...over });
    for (const role of ['agg', 'prefill', 'decode'] as const) {
      const base = real(role);
      const rps = role === 'prefill' ? prefillEngineRps(base) : role === 'decode' ? decodeEngineRps(base) : aggEngineRps(base);
      // Tens of requests per second per GPU for 1k/100 requests on an 8B model.
      expect(rps).toBeGreaterThan(5);
      expect(rps).toBeLessThan(500);
    }
    expect(decodeEngineRps(real('decode'))).toBeGreaterThan(decodeEngineRps(real('decode', { itlMs: 12 })));
    expect(prefillEngineRps(real('prefill', { prefixHitRate: 0.75 }))).toBeGreaterThan(1.5 * prefillEngineRps(real('prefill')));
  });
});
