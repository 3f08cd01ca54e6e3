import { describe, expect, it } from 'vitest';
import type { ResolvedDeployment } from '../../../src/replay/deployment.js';
import { aggEngineRps } from '../../../src/replay/planner/engine-capacity.js';
import { PlannerController } from '../../../src/replay/planner/controller.js';
import { plannerSettingsOf } from '../../../src/replay/planner/settings.js';
import { replayDeployment } from '../../../src/replay/run.js';
import type { ClusterTelemetry } from '../../../src/replay/scaling.js';
import type { WorkloadPlan } from '../../../src/replay/workload/request.js';
import { aggDeployment, disaggDeployment } from '../fixture.js';
import { phasePlan } from './traces.js';

const sla = { ttft_ms: 300, itl_ms: 30 };
const goal = { target: 'goodput_per_gpu', sla };
const opts = { specHash: 'planner-test', sla };
const kv = { mode: 'kv_router' as const };
const LOAD = { planner_scaling_policy: 'load_180_5', planner_fpm_sampling: 'default', planner_load_sensitivity: 'default' };

interface Tick {
  t: ClusterTelemetry;
  live: number;
  want: number | undefined;
}

/** Attaches a planner to `dep` and records every tick it sees and what it asked for. */
function attach(dep: ResolvedDeployment, config: Record<string, unknown>) {
  const ctl = new PlannerController(plannerSettingsOf(config, goal), dep.pools);
  const ticks: Tick[] = [];
  const decide = ctl.decide.bind(ctl);
  ctl.decide = (t) => {
    const want = decide(t);
    ticks.push({ t, live: t.roles[0].ready + t.roles[0].starting, want: want?.agg });
    return want;
  };
  dep.scaling = ctl;
  return { ctl, ticks };
}

function run(dep: ResolvedDeployment, plan: WorkloadPlan) {
  return replayDeployment(dep, plan, opts).metrics;
}

const goodputPerGpu = (m: Record<string, number>) => m.goodput_output_throughput_tok_s / m.avg_gpu;

describe('load scaling in replay', () => {
  // One fixture worker serves ≈ 34 req/s of 1024/30 requests: 120 req/s wants four.
  const ramp = phasePlan([
    { seconds: 5, rps: 2 },
    { seconds: 10, rps: 45 },
    { seconds: 8, rps: 120 },
    { seconds: 30, rps: 1 },
  ]);

  it('a rising load scales up to the GPU budget, and the idle tail scales back down to the floor', () => {
    const dep = aggDeployment(1, {}, kv);
    dep.pools[0].startupTimeMs = 1000;
    const { ctl, ticks } = attach(dep, { ...LOAD, max_gpu_budget: 3 });
    const m = run(dep, ramp);
    const s = ctl.stats();
    expect(s.max_replicas_agg).toBe(3);
    expect(Math.max(...ticks.map((k) => k.live))).toBeLessThanOrEqual(3);
    expect(s.planner_budget_holds).toBeGreaterThan(0); // 120 req/s wanted a fourth worker
    expect(s.planner_scale_ups).toBeGreaterThanOrEqual(2);
    expect(s.planner_scale_downs).toBeGreaterThanOrEqual(2);
    expect(ticks[ticks.length - 1].t.roles[0].ready).toBe(1);
    expect(m.completed_requests).toBe(m.issued_requests);
    expect(m.peak_workers).toBe(3);
  });

  it('never drains below min_endpoint', () => {
    const dep = aggDeployment(4, {}, kv);
    const { ctl, ticks } = attach(dep, { ...LOAD, min_endpoint: 2, max_gpu_budget: 8 });
    run(dep, phasePlan([{ seconds: 60, rps: 1 }]));
    expect(Math.min(...ticks.map((k) => k.live))).toBe(2);
    expect(ticks[ticks.length - 1].live).toBe(2);
    expect(ctl.stats().planner_scale_downs).toBe(2);
  });

  it('one pending action at a time: no new action while a worker is starting or draining, and ±1 per action', () => {
    const dep = aggDeployment(1, {}, kv);
    dep.pools[0].startupTimeMs = 8_000; // longer than a load interval
    const { ctl, ticks } = attach(dep, { ...LOAD, max_gpu_budget: 8 });
    run(dep, phasePlan([{ seconds: 30, rps: 80 }, { seconds: 40, rps: 1 }]));
    const actions = ticks.filter((k) => k.want !== undefined);
    expect(actions.length).toBeGreaterThanOrEqual(3);
    for (const a of actions) {
      expect(a.t.roles[0].starting + a.t.roles[0].draining).toBe(0);
      expect(Math.abs(a.want! - a.live)).toBe(1);
    }
    expect(ctl.stats().planner_pending_holds).toBeGreaterThan(0);
  });

  it('GPU-hours count every replica from its creation (startup included) to the end', () => {
    const dep = aggDeployment(1, {}, kv);
    dep.pools[0].startupTimeMs = 3000;
    // Sensitivity 0: never scale down, so every replica lives to the end of the run.
    const { ticks } = attach(dep, { ...LOAD, load_sensitivity: { load_scaling_down_sensitivity: 0, load_min_observations: 5 }, max_gpu_budget: 4 });
    const m = run(dep, phasePlan([{ seconds: 10, rps: 5 }, { seconds: 30, rps: 70 }]));
    const ups = ticks.filter((k) => k.want !== undefined).map((k) => k.t.nowMs);
    expect(ups.length).toBeGreaterThan(0);
    const gpuMs = m.duration_ms + ups.reduce((a, t) => a + (m.duration_ms - t), 0);
    expect(m.gpu_hours).toBeCloseTo(gpuMs / 3_600_000, 9);
  });

  it('on a bursty trace under a goodput SLA, load scaling beats the static deployment on goodput per GPU', () => {
    // Quiet stretches (2 req/s) that one worker serves easily, bursts (50 req/s) that need two.
    const bursty = () => phasePlan([{ seconds: 40, rps: 2 }, { seconds: 30, rps: 50 }, { seconds: 40, rps: 2 }, { seconds: 30, rps: 50 }]);
    const statik = run(aggDeployment(4, {}, kv), bursty());
    const dep = aggDeployment(4, {}, kv);
    dep.pools[0].startupTimeMs = 2000;
    const { ctl } = attach(dep, { ...LOAD, max_gpu_budget: 8 });
    const scaled = run(dep, bursty());
    // Static: every request meets the SLA but four GPUs idle through the quiet stretches.
    expect(statik.goodput_request_throughput_rps).toBeCloseTo(statik.request_throughput_rps, 9);
    expect(scaled.avg_gpu).toBeLessThan(0.5 * statik.avg_gpu);
    expect(goodputPerGpu(scaled)).toBeGreaterThan(1.5 * goodputPerGpu(statik));
    // …and it is not just "fewer GPUs": one static worker fails the bursts.
    expect(goodputPerGpu(scaled)).toBeGreaterThan(3 * goodputPerGpu(run(aggDeployment(1, {}, kv), bursty())));
    expect(ctl.stats().planner_scale_ups).toBeGreaterThanOrEqual(2);
  });
});

describe('load scaling of a disaggregated deployment', () => {
  it('scales prefill on TTFT and decode on ITL, each role on its own', () => {
    // 4096-token prompts at 20 req/s: one prefill worker computes ≈ 11 req/s; decode of 20 tokens is light.
    const dep = disaggDeployment(1, 3, null, kv);
    const ctl = new PlannerController(plannerSettingsOf({ ...LOAD, max_gpu_budget: 8 }, goal), dep.pools);
    const seen: ClusterTelemetry[] = [];
    const decide = ctl.decide.bind(ctl);
    ctl.decide = (t) => (seen.push(t), decide(t));
    dep.scaling = ctl;
    run(dep, phasePlan([{ seconds: 30, rps: 20 }], 4096, 20));
    const s = ctl.stats();
    expect(s.max_replicas_prefill).toBe(3);
    expect(s.max_replicas_decode).toBe(3);
    const last = seen[seen.length - 1];
    expect(last.roles.map((r) => [r.role, r.ready])).toEqual([['prefill', 3], ['decode', 1]]);
  });
});

describe('throughput scaling in replay', () => {
  const every20s = { enable_throughput_scaling: true, enable_load_scaling: false, throughput_adjustment_interval_seconds: 20, load_adjustment_interval_seconds: 5 };

  it('sizes replicas as ⌈forecast demand ÷ engine capacity at the SLA⌉, within the GPU budget', () => {
    const dep = aggDeployment(1, {}, kv);
    const { ctl } = attach(dep, { planner_scaling_policy: every20s, max_gpu_budget: 8 });
    const m = run(dep, phasePlan([{ seconds: 60, rps: 70 }]));
    const first = ctl.throughputDecisions[0];
    expect(first.nowMs).toBe(20_000);
    // constant_last: arrivals in [0, 20 s] (the one at exactly 20 s arrives before the tick).
    expect(first.demandRps).toBeCloseTo(1401 / 20, 9);
    expect(first.isl).toBe(1024);
    expect(first.osl).toBe(30);
    const rps = aggEngineRps({ perf: dep.pools[0].perf, engine: dep.pools[0].engine, isl: 1024, osl: 30, prefixHitRate: 0, ttftMs: sla.ttft_ms, itlMs: sla.itl_ms });
    expect(first.engineRps[0]).toBeCloseTo(rps, 9);
    expect(first.replicas[0]).toBe(Math.ceil(first.demandRps / rps));
    expect(first.replicas[0]).toBeGreaterThan(1);
    expect(m.max_replicas_agg ?? ctl.stats().max_replicas_agg).toBe(first.replicas[0]);

    const capped = aggDeployment(1, {}, kv);
    const c = attach(capped, { planner_scaling_policy: every20s, max_gpu_budget: 1 });
    run(capped, phasePlan([{ seconds: 60, rps: 70 }]));
    expect(c.ctl.throughputDecisions.every((d) => d.replicas[0] === 1)).toBe(true);
  });

  it('forecasts the next window with the spec\'s load predictor (three series: requests, ISL, OSL)', () => {
    const every10s = { ...every20s, throughput_adjustment_interval_seconds: 10 };
    const rising = () => phasePlan([10, 20, 30, 40, 50].map((rps) => ({ seconds: 10, rps })));
    const demands = (predictor: Record<string, unknown>) => {
      const dep = aggDeployment(1, {}, kv);
      const { ctl } = attach(dep, { planner_scaling_policy: every10s, max_gpu_budget: 8, ...predictor });
      run(dep, rising());
      return ctl.throughputDecisions.map((d) => d.demandRps);
    };
    const constant = demands({});
    // constant_last: next window = this window (the arrival at a tick's instant counts in the window it closes).
    expect(constant.slice(0, 4).map(Math.round)).toEqual([10, 20, 30, 40]);
    const kalman = demands({
      load_predictor: 'kalman_reactive_raw',
      load_predictor_spec: { load_predictor: 'kalman', load_predictor_log1p: false, kalman_q_level: 10, kalman_q_trend: 1, kalman_r: 5, kalman_min_points: 3 },
    });
    // Warm-up (3 points) repeats the last value; then the trend carries the forecast above it.
    expect(kalman.slice(0, 2)).toEqual(constant.slice(0, 2));
    expect(kalman[3]).toBeGreaterThan(constant[3] + 2);
  });

  it('with load scaling on too, the throughput result is a floor load scaling does not drain below', () => {
    const hybrid = { ...every20s, enable_load_scaling: true };
    const dep = aggDeployment(1, {}, kv);
    const { ctl, ticks } = attach(dep, { planner_scaling_policy: hybrid, planner_fpm_sampling: 'default', planner_load_sensitivity: 'aggressive', max_gpu_budget: 8 });
    run(dep, phasePlan([{ seconds: 40, rps: 70 }, { seconds: 21, rps: 70 }]));
    const floor = ctl.throughputDecisions[0].replicas[0];
    expect(floor).toBeGreaterThan(1);
    const after = ticks.filter((k) => k.t.nowMs > 20_000 && k.t.nowMs < 40_000);
    for (const k of after) expect(k.live).toBeGreaterThanOrEqual(floor);
  });
});
