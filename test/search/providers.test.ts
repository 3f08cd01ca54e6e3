// Built-in providers (namespacing, dead dimensions, materialization) and the RunnerCapabilities preflight.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { REPLAY_RUNNER_CAPABILITIES } from '../../src/replay/capabilities.js';
import { planBranchDimensions } from '../../src/search/dimensions.js';
import { requireCompatible, supportsTopology } from '../../src/search/providers/capabilities.js';
import { plannerProvider } from '../../src/search/providers/plannerProvider.js';
import { routerProvider } from '../../src/search/providers/routerProvider.js';
import { planSweep } from '../../src/search/sweepPlan.js';

const base = (extra = '', goal = 'goal: {target: throughput}') =>
  parseConfigText(`
search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  gpu_budget: 4
  deployment_mode: [agg]
  backend: [vllm]
${extra}
workload: {isl: 256, osl: 32, concurrency: 4, num_request_ratio: 2}
${goal}
`);

describe('built-in providers', () => {
  it('namespace router and planner parameters as adapter::<provider>::<param>', () => {
    const { branches } = planBranchDimensions(base('  planner_scaling_policy: [disabled, load_180_5]'));
    const names = branches[0].dimensions.map((d) => d.name);
    expect(names).toContain('adapter::dynamo.router::router_mode');
    expect(names).toContain('adapter::dynamo.router::prefill_load_scale');
    expect(names).toContain('adapter::dynamo.planner::scaling_policy');
    expect(names).toContain('adapter::dynamo.planner::fpm_sampling');
    expect(names.filter((n) => n.startsWith('adapter::') && !/^adapter::dynamo\.(router|planner)::/.test(n))).toEqual([]);
  });

  it('router: weights are dropped under round_robin and left out of the materialized config', () => {
    const cfg = base('  router_mode: [round_robin]');
    const plan = routerProvider.generateSearchSpace({ config: cfg });
    expect(plan.branches.agg.dropped.map((d) => d.name)).toContain('overlap_score_credit');
    const out = routerProvider.materializeReplay(plan, { router_mode: 'round_robin', overlap_score_credit: 1 }, { deployment_mode: 'agg', backend: 'vllm', config: cfg });
    expect(out.config).toEqual({ router_mode: 'round_robin' });
    expect(out.runtime_hooks[0]).toMatchObject({ provider: 'dynamo.router', kind: 'placement_policy', api_version: 1 });
  });

  it('planner: expands the selected composites and wires the load-predictor winner into throughput scaling', () => {
    const cfg = base('  planner_scaling_policy: [disabled, throughput_180_5]', 'goal: {target: goodput, sla: {ttft_ms: 500, itl_ms: 50}}');
    const plan = plannerProvider.generateSearchSpace({ config: cfg });
    expect(plan.state.loadPredictor?.reason).toBe('static_workload_constant');
    const ctx = { deployment_mode: 'agg' as const, backend: 'vllm', config: cfg };
    const off = plannerProvider.materializeReplay(plan, { scaling_policy: 'disabled', fpm_sampling: 'small', load_sensitivity: 'default' }, ctx);
    expect(off.config.load_predictor).toBeUndefined();
    expect(off.config.fpm_sampling).toBeUndefined();
    expect(off.runtime_hooks).toEqual([]);
    const on = plannerProvider.materializeReplay(plan, { scaling_policy: 'throughput_180_5', fpm_sampling: 'small', load_sensitivity: 'aggressive' }, ctx);
    expect(on.config).toMatchObject({
      optimization_target: 'sla',
      scaling_policy: { enable_throughput_scaling: true, throughput_adjustment_interval_seconds: 180 },
      fpm_sampling: { max_num_fpm_samples: 32, fpm_sample_bucket_size: 4 },
      load_sensitivity: { load_scaling_down_sensitivity: 70, load_min_observations: 3 },
      load_predictor: 'constant_last',
    });
    expect(on.runtime_hooks[0]).toMatchObject({ provider: 'dynamo.planner', kind: 'scaling_policy' });
  });
});

describe('RunnerCapabilities preflight', () => {
  it('accepts what the replay runner supports', () => {
    expect(() => planSweep(base(), { capabilities: REPLAY_RUNNER_CAPABILITIES })).not.toThrow();
    expect(supportsTopology(REPLAY_RUNNER_CAPABILITIES, 'trtllm', 'disagg')).toBe(false);
  });

  it('fails before the first trial on an unsupported version, topology or hook, listing each', () => {
    const caps = { replay_spec_api_version: 2, supported_backend_topologies: [['sglang', '*']] as [string, string][], supported_hooks: [] };
    expect(() => planSweep(base(), { capabilities: caps })).toThrow(/api_version 1.*backend 'vllm' in agg topology.*dynamo\.router:placement_policy@1/);
    expect(() =>
      requireCompatible({ ...REPLAY_RUNNER_CAPABILITIES }, { replay_spec_api_version: 1, backend_topologies: [['trtllm', 'disagg']], hooks: [] }),
    ).toThrow(/trtllm' in disagg/);
  });
});

describe('load-predictor winner wiring', () => {
  it('every throughput-scaling candidate carries the sub-sweep winner of its interval; others carry none', () => {
    const cfg = parseConfigText(
      `
search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  gpu_budget: 4
  deployment_mode: [agg]
  backend: [vllm]
  planner_scaling_policy: [throughput_180_5, load_180_5, throughput_600_5]
  load_predictor_candidates: [constant_last, kalman_reactive_raw]
workload: {trace_path: examples/traces/mooncake-small.jsonl}
goal: {target: goodput, sla: {ttft_ms: 1000, itl_ms: 50}}
`,
      { baseDir: process.cwd() },
    );
    // A steadily rising load: a trend-following forecaster beats "last value".
    const traceRequests = [];
    for (let w = 0; w < 200; w++) for (let i = 0; i < 5 + 2 * w; i++) traceRequests.push({ arrival_ms: w * 180_000 + i, isl: 1000, osl: 100 });
    const plan = planSweep(cfg, { traceRequests, capabilities: REPLAY_RUNNER_CAPABILITIES });
    expect(plan.load_predictor.reason).toBe('forecast_loss');
    const winners = Object.fromEntries(plan.load_predictor.per_interval.map((r) => [r.interval_seconds, r.winner]));
    expect(winners[180]).toBe('kalman_reactive_raw');
    const b = plan.branches[0];
    for (const policy of ['throughput_180_5', 'load_180_5', 'throughput_600_5']) {
      const m = b.materializer.materialize({ ...b.plan.initial_point, 'adapter::dynamo.planner::scaling_policy': policy });
      const planner = m.candidate!.adapters['dynamo.planner'];
      if (policy === 'load_180_5') expect(planner.load_predictor).toBeUndefined();
      else expect(planner.load_predictor).toBe(winners[policy === 'throughput_180_5' ? 180 : 600]);
    }
  });

  it('projectPoint: dead knobs take their first value (same candidate), live ones are kept, and it is idempotent', () => {
    const cfg = base(`  gpu_budget: 4
  router_mode: [kv_router, round_robin]
  overlap_score_credit: [0.0, 1.0]
  prefill_load_scale: [0.5, 2.0]
  planner_scaling_policy: [disabled, load_180_5]
  planner_load_sensitivity: [aggressive, default]`.replace('  gpu_budget: 4\n', ''));
    const b = planSweep(cfg, { capabilities: REPLAY_RUNNER_CAPABILITIES }).branches[0];
    const R = 'adapter::dynamo.router::';
    const P = 'adapter::dynamo.planner::';
    const point = {
      ...b.plan.initial_point,
      [`${R}router_mode`]: 'round_robin',
      [`${R}overlap_score_credit`]: 1,
      [`${R}prefill_load_scale`]: 2,
      [`${P}scaling_policy`]: 'disabled',
      [`${P}load_sensitivity`]: 'default',
    };
    const q = b.materializer.projectPoint(point);
    expect(b.materializer.materialize(q).key).toBe(b.materializer.materialize(point).key);
    const dims = new Map(b.plan.dimensions.map((d) => [d.name, d.values[0]]));
    for (const k of [`${R}overlap_score_credit`, `${R}prefill_load_scale`, `${P}load_sensitivity`]) if (dims.has(k)) expect(q[k]).toBe(dims.get(k));
    expect(b.materializer.projectPoint(q)).toEqual(q);
    // Live under kv_router: kept.
    const live = { ...point, [`${R}router_mode`]: 'kv_router' };
    expect(b.materializer.projectPoint(live)[`${R}overlap_score_credit`]).toBe(1);
  });

  it('lowCorner: the fewest-GPU legal config for the point\'s backend, other knobs kept', () => {
    const b = planSweep(base(), { capabilities: REPLAY_RUNNER_CAPABILITIES }).branches[0];
    const q = b.materializer.lowCorner(b.plan.initial_point);
    expect(b.materializer.materialize(q).used_gpus).toBe(1);
    expect(b.materializer.projectPoint(q)).toEqual(q);
  });

  it('lowCorners: the point\'s own low corner first, then every other backend\'s', () => {
    const twoBackends = parseConfigText(`
search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  gpu_budget: 4
  deployment_mode: [agg]
  backend: [vllm, sglang]
workload: {isl: 256, osl: 32, concurrency: 4, num_request_ratio: 2}
`);
    const b = planSweep(twoBackends, { capabilities: REPLAY_RUNNER_CAPABILITIES }).branches[0];
    const corners = b.materializer.lowCorners(b.plan.initial_point);
    expect(corners[0]).toEqual(b.materializer.lowCorner(b.plan.initial_point));
    const backends = b.plan.dimensions.find((d) => d.name === 'backend')?.values ?? [];
    expect(corners.map((c) => c.backend).sort()).toEqual([...backends].sort());
    for (const c of corners) expect(b.materializer.materialize(c).used_gpus).toBe(1);
  });
});
