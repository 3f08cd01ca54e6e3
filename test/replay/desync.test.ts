// The closed loop's desynchronisation (README "Calibration and accuracy"): with the workload defaults
// (client re-issue latency, output-length spread) a fixed-isl/osl closed loop does not stay phase-
// locked in prefill waves after the start-up wave; with both switched off it does. Determinism holds,
// and the report's mean TTFT / TPOT cover every completed request (start-up wave included).
import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/load.js';
import { simulate } from '../../src/replay/cluster.js';
import { replaySpecFromConfig } from '../../src/replay/from-config.js';
import { resolveReplay, runReplay } from '../../src/replay/resolve.js';

const doc = (workload: Record<string, unknown> = {}) => ({
  search_space: {
    model_name: 'meta-llama/Llama-3.1-8B-Instruct',
    hardware_sku: 'h100_sxm',
    gpu_budget: 1,
    deployment_mode: ['agg'],
    backend: ['vllm'],
    parallel_configs: [{ tp: 1 }],
    agg_max_num_batched_tokens: [8192],
    agg_max_num_seqs: [256],
    agg_enable_prefix_caching: false,
    router_mode: ['round_robin'],
    planner_scaling_policy: ['disabled'],
  },
  // 16 clients × 1024-token prompts: two full 8192-token prefill passes per wave.
  workload: { isl: 1024, osl: 256, concurrency: 16, num_request_ratio: 12, ...workload },
  goal: { target: 'throughput' },
});

const specOf = (w: Record<string, unknown> = {}) => replaySpecFromConfig(configFromObject(doc(w)));

/** Mean number of requests (after the start-up wave) sharing one instant of `key`. */
function perInstant(w: Record<string, unknown>, key: 'arrivalMs' | 'firstTokenMs'): number {
  const r = resolveReplay(specOf(w));
  const done = simulate(r.deployment, r.plan).recorder.completed.filter((x) => x.id >= 16);
  const at = new Map<number, number>();
  for (const x of done) at.set(x[key], (at.get(x[key]) ?? 0) + 1);
  return done.length / at.size;
}

describe('closed-loop desynchronisation', () => {
  it('without client latency and length spread the loop stays phase-locked: requests arrive and are prefilled in cohorts', () => {
    const locked = { client_reissue_ms: 0, output_len_spread: 0 };
    expect(perInstant(locked, 'arrivalMs')).toBeGreaterThan(3);
    expect(perInstant(locked, 'firstTokenMs')).toBeGreaterThan(3);
  });

  it('with the workload defaults, after the start-up wave, about one request arrives and gets its first token per instant', () => {
    expect(perInstant({}, 'arrivalMs')).toBeLessThan(1.05);
    expect(perInstant({}, 'firstTokenMs')).toBeLessThan(1.6);
  });

  it('same config + seed ⇒ byte-identical report (wall time aside); another random_seed changes it', () => {
    const a = runReplay(specOf());
    const b = runReplay(specOf());
    expect(JSON.stringify(b.metrics)).toBe(JSON.stringify(a.metrics));
    const { wall_time_ms: _a, ...ma } = a.metadata;
    const { wall_time_ms: _b, ...mb } = b.metadata;
    expect(JSON.stringify(mb)).toBe(JSON.stringify(ma));
    const c = runReplay(specOf({ random_seed: 3 }));
    expect(c.metrics.mean_ttft_ms).not.toBe(a.metrics.mean_ttft_ms);
    // The spread keeps the mean output length (192 requests × 256 ± 10 %).
    expect(Math.abs(a.metrics.output_tokens / (192 * 256) - 1)).toBeLessThan(0.02);
  });

  it('mean_ttft_ms / mean_tpot_ms are means over every completed request, the start-up wave included', () => {
    const r = resolveReplay(specOf());
    const o = simulate(r.deployment, r.plan);
    const done = o.recorder.completed;
    const ttft = done.map((x) => x.firstTokenMs - x.arrivalMs);
    const tpot = done.filter((x) => x.emitted >= 2).map((x) => (x.doneMs - x.firstTokenMs) / (x.emitted - 1));
    const m = runReplay(specOf()).metrics;
    expect(m.completed_requests).toBe(192);
    expect(m.mean_ttft_ms).toBeCloseTo(ttft.reduce((s, x) => s + x, 0) / ttft.length, 6);
    expect(m.mean_tpot_ms).toBeCloseTo(tpot.reduce((s, x) => s + x, 0) / tpot.length, 6);
    // The start-up wave waits for the prefills ahead of it: it weighs in the mean.
    const wave = ttft.slice(0, 16).reduce((s, x) => s + x, 0) / 16;
    expect(wave).toBeGreaterThan(m.mean_ttft_ms);
  });

  it('the frontend adds its fixed latency to TTFT (origin: the send), not to TPOT', () => {
    const r = resolveReplay(specOf({ concurrency: 1, num_request_ratio: 4 }));
    const base = simulate({ ...r.deployment, frontend: { fixedMs: 0, tokenizeMsPerToken: 0 } }, r.plan).recorder.completed;
    const slow = simulate({ ...r.deployment, frontend: { fixedMs: 40, tokenizeMsPerToken: 0.01 } }, r.plan).recorder.completed;
    for (let i = 0; i < base.length; i++) {
      expect(slow[i].firstTokenMs - slow[i].arrivalMs).toBeCloseTo(base[i].firstTokenMs - base[i].arrivalMs + 40 + 0.01 * 1024, 6);
      expect(slow[i].doneMs - slow[i].firstTokenMs).toBeCloseTo(base[i].doneMs - base[i].firstTokenMs, 6);
    }
  });
});
