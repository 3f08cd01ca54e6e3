import { describe, expect, it } from 'vitest';
import { replayDeployment } from '../../src/replay/run.js';
import { mooncakePlan, type MooncakeRow } from '../../src/replay/workload/mooncake.js';
import { syntheticPlan } from '../../src/replay/workload/synthetic.js';
import type { ClusterTelemetry, ScalingController } from '../../src/replay/scaling.js';
import { aggDeployment } from './fixture.js';
import type { HostTierConfig } from '../../src/replay/engine/host-tier.js';

const opts = { specHash: 'test', sla: null };

/** Ten distinct 16-block prompts, cycled twice, one second apart (each finishes before the next). */
function cyclingPrefixes() {
  const rows: MooncakeRow[] = [];
  for (let i = 0; i < 20; i++) {
    const p = i % 10;
    rows.push({ line: i + 1, timestampMs: i * 1000, inputLength: 1024, outputLength: 2, hashIds: [100 + 2 * p, 101 + 2 * p], sessionId: null, delayMs: null });
  }
  return mooncakePlan(rows, { traceBlockSize: 512, arrivalSpeedupRatio: 1, replayConcurrency: null });
}

const host = (h2dGBps: number, d2hGBps = 32): HostTierConfig => ({ numBlocks: 1000, blockBytes: 64 * 131072, h2dGBps, d2hGBps, offloadBatchSize: 4, batchLatencyMs: 0 });

describe('G2 host offload', () => {
  it('evicted prefixes come back from host memory, and the restore shows up in TTFT', () => {
    const g1 = { kvCapacityTokensPerRank: 40 * 64 };
    const none = replayDeployment(aggDeployment(1, g1), cyclingPrefixes(), opts).metrics;
    const fast = replayDeployment(aggDeployment(1, { ...g1, hostTier: host(32) }), cyclingPrefixes(), opts).metrics;
    const slow = replayDeployment(aggDeployment(1, { ...g1, hostTier: host(1) }), cyclingPrefixes(), opts).metrics;
    expect(none.prefix_cache_hit_rate).toBe(0);
    // Second cycle: 15 of 16 blocks of each prompt restored (the last token is always computed).
    expect(fast.prefix_cache_hit_rate).toBeCloseTo((10 * 15 * 64) / (20 * 1024), 12);
    expect(fast.host_cache_hit_tokens).toBe(10 * 15 * 64);
    expect(fast.mean_ttft_ms).toBeLessThan(none.mean_ttft_ms);
    // 15 blocks × 8 MiB at 1 GB/s ≈ 126 ms per restore, on half the requests.
    const restoreMs = (15 * 64 * 131072) / 1e6;
    expect(slow.mean_ttft_ms - fast.mean_ttft_ms).toBeCloseTo((10 * (restoreMs - restoreMs / 32)) / 20, 6);
  });

  it('a block is restorable only once its G1→G2 copy has landed: a slow D2H link delays restores', () => {
    const g1 = { kvCapacityTokensPerRank: 40 * 64 };
    const fast = replayDeployment(aggDeployment(1, { ...g1, hostTier: host(32, 32) }), cyclingPrefixes(), opts).metrics;
    // 16 blocks × 8 MiB per prompt at 0.01 GB/s ≈ 13.4 s per prompt: the copies queue up far past the
    // second cycle's arrivals (10 s later), so each restore waits for its prompt's copy.
    const slowD2h = replayDeployment(aggDeployment(1, { ...g1, hostTier: host(32, 0.01) }), cyclingPrefixes(), opts).metrics;
    expect(slowD2h.host_cache_hit_tokens).toBe(fast.host_cache_hit_tokens);
    const copyMs = (16 * 64 * 131072) / (0.01 * 1e6);
    // Prompt p's copy lands at ≈ (p+1)·copyMs after the first arrival; its repeat arrives at 10 s + p s.
    let wait = 0;
    for (let p = 0; p < 10; p++) wait += Math.max(0, (p + 1) * copyMs - (10_000 + p * 1000));
    expect(slowD2h.mean_ttft_ms - fast.mean_ttft_ms).toBeGreaterThan((0.9 * wait) / 20);
    expect(slowD2h.mean_ttft_ms - fast.mean_ttft_ms).toBeLessThan((1.1 * wait) / 20 + 50);
  });
});

class StepController implements ScalingController {
  calls: ClusterTelemetry[] = [];
  constructor(
    readonly intervalMs: number,
    private readonly want: number,
  ) {}
  decide(t: ClusterTelemetry) {
    this.calls.push(t);
    return { agg: this.want };
  }
}

describe('planner seam', () => {
  const plan = () => syntheticPlan(
    { isl: 500, osl: 50, randomRangeRatio: 1, seed: 1, sharedPrefixRatio: 0, numPrefixGroups: 0, turnsPerSession: 1, interTurnDelayMs: 0, numRequests: 400 },
    { kind: 'rate', requestRate: 40 },
  );

  it('a static deployment keeps its replicas: GPU-hours = GPUs × duration', () => {
    const m = replayDeployment(aggDeployment(2), plan(), opts).metrics;
    expect(m.gpu_hours).toBeCloseTo((2 * m.duration_ms) / 3_600_000, 12);
    expect(m.avg_gpu).toBeCloseTo(2, 12);
  });

  it('scaling up adds workers after startup_time; they serve and count GPU time from creation', () => {
    const ctl = new StepController(1000, 3);
    const dep = aggDeployment(1, {}, { mode: 'round_robin' });
    dep.pools[0].startupTimeMs = 500;
    dep.scaling = ctl;
    const m = replayDeployment(dep, plan(), opts).metrics;
    expect(ctl.calls.length).toBeGreaterThan(3);
    expect(ctl.calls[0].roles[0]).toMatchObject({ role: 'agg', ready: 1, starting: 0 });
    expect(ctl.calls[1].roles[0]).toMatchObject({ ready: 3, starting: 0 });
    expect(ctl.calls[0].arrivals).toBe(41); // t = 0 … 1000 inclusive: same-time arrivals precede scaling
    expect(m.scaling_actions).toBe(2);
    expect(m.peak_workers).toBe(3);
    // 1 GPU for the whole run + 2 more from t = 1000 ms.
    expect(m.gpu_hours).toBeCloseTo((m.duration_ms + 2 * (m.duration_ms - 1000)) / 3_600_000, 9);
    const single = replayDeployment(aggDeployment(1), plan(), opts).metrics;
    expect(m.mean_ttft_ms).toBeLessThan(single.mean_ttft_ms);
  });

  it('scaling down drains workers: they stop taking requests and stop counting once empty', () => {
    const ctl = new StepController(2000, 1);
    const dep = aggDeployment(4);
    dep.scaling = ctl;
    const m = replayDeployment(dep, plan(), opts).metrics;
    expect(m.completed_requests).toBe(400);
    expect(m.gpu_hours).toBeLessThan((4 * m.duration_ms) / 3_600_000);
    expect(m.gpu_hours).toBeGreaterThan((m.duration_ms + 3 * 2000) / 3_600_000);
  });
});

describe('capacity edges', () => {
  it('a request that can never fit a rank is rejected (with or without prefix caching), the rest complete', () => {
    for (const enablePrefixCaching of [true, false]) {
      const rows: MooncakeRow[] = [
        { line: 1, timestampMs: 0, inputLength: 1024, outputLength: 4, hashIds: [1, 2], sessionId: null, delayMs: null },
        { line: 2, timestampMs: 1, inputLength: 200, outputLength: 4, hashIds: [3], sessionId: null, delayMs: null },
      ];
      const plan = mooncakePlan(rows, { traceBlockSize: 512, arrivalSpeedupRatio: 1, replayConcurrency: null });
      const m = replayDeployment(aggDeployment(1, { kvCapacityTokensPerRank: 10 * 64, maxNumBatchedTokens: 128, enablePrefixCaching }), plan, opts).metrics;
      expect(m.rejected_requests).toBe(1);
      expect(m.completed_requests).toBe(1);
    }
  });

  it('a request whose output outgrows the rank is preempted, then rejected once its tokens exceed capacity', () => {
    const rows: MooncakeRow[] = [{ line: 1, timestampMs: 0, inputLength: 300, outputLength: 1000, hashIds: [1], sessionId: null, delayMs: null }];
    const plan = mooncakePlan(rows, { traceBlockSize: 512, arrivalSpeedupRatio: 1, replayConcurrency: null });
    const m = replayDeployment(aggDeployment(1, { kvCapacityTokensPerRank: 10 * 64 }), plan, opts).metrics;
    expect(m.rejected_requests).toBe(1);
    expect(m.preemptions).toBeGreaterThan(0);
  });
});

describe('router sampling and closed-loop sessions', () => {
  const plan = () => syntheticPlan(
    { isl: 300, osl: 5, randomRangeRatio: 1, seed: 1, sharedPrefixRatio: 0, numPrefixGroups: 0, turnsPerSession: 1, interTurnDelayMs: 0, numRequests: 200 },
    { kind: 'rate', requestRate: 2 },
  );

  it('random router temperature is reproducible per seed and changes placement across seeds', () => {
    const a = replayDeployment(aggDeployment(4, {}, { mode: 'kv_router', temperature: 1 }), plan(), opts).metrics;
    const b = replayDeployment(aggDeployment(4, {}, { mode: 'kv_router', temperature: 1 }), plan(), opts).metrics;
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('replay_concurrency caps active sessions: a slot is held through think time', () => {
    const rows: MooncakeRow[] = [
      { line: 1, timestampMs: 0, inputLength: 500, outputLength: 3, hashIds: [1], sessionId: 's1', delayMs: null },
      { line: 2, timestampMs: 0, inputLength: 500, outputLength: 3, hashIds: [2], sessionId: 's2', delayMs: null },
      { line: 3, timestampMs: 0, inputLength: 500, outputLength: 3, hashIds: [1, 3], sessionId: 's1', delayMs: 1000 },
      { line: 4, timestampMs: 0, inputLength: 500, outputLength: 3, hashIds: [2, 4], sessionId: 's2', delayMs: 1000 },
    ];
    const plan1 = mooncakePlan(rows, { traceBlockSize: 512, arrivalSpeedupRatio: 1, replayConcurrency: 1 });
    const m = replayDeployment(aggDeployment(1), plan1, opts).metrics;
    expect(m.completed_requests).toBe(4);
    // One session at a time: nothing overlaps, so the run is four requests back to back plus two think times.
    expect(m.duration_ms).toBeCloseTo(4 * m.mean_e2e_latency_ms + 2000, 6);
    const plan2 = mooncakePlan(rows, { traceBlockSize: 512, arrivalSpeedupRatio: 1, replayConcurrency: 2 });
    const m2 = replayDeployment(aggDeployment(1), plan2, opts).metrics;
    expect(m2.duration_ms).toBeLessThan(m.duration_ms - 1000);
  });
});
