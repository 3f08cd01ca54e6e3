// Every rule of the seed and the issue, each with one accepted and one rejected config.
import { describe, expect, it } from 'vitest';
import { baseConfig, issuesOf, load, withPatch, type Obj } from './fixtures.js';

const ss = (p: Obj): Obj => ({ search_space: p });
const wl = (p: Obj): Obj => ({ workload: p });
const synthetic = { isl: undefined, osl: undefined, concurrency: undefined, num_request_ratio: undefined };
const goodputGoal = { target: 'goodput', sla: { ttft_ms: 500, itl_ms: 50 } };

interface Rule {
  rule: string;
  good: Obj;
  bad: Obj;
  /** Path of the expected issue, and a fragment of its message. */
  path: string;
  message?: string;
}

const RULES: Rule[] = [
  // blocks
  { rule: 'unknown top-level key', good: {}, bad: { extra: 1 }, path: 'extra', message: "unknown key 'extra'" },
  { rule: 'search_space required', good: {}, bad: { search_space: undefined }, path: 'search_space', message: 'missing required key' },
  { rule: 'workload required', good: {}, bad: { workload: undefined }, path: 'workload', message: 'missing required key' },
  { rule: 'unknown key in search_space', good: {}, bad: ss({ backends: ['vllm'] }), path: 'search_space.backends', message: "did you mean 'backend'" },
  { rule: 'unknown key in workload', good: {}, bad: wl({ isl_tokens: 3 }), path: 'workload.isl_tokens' },
  { rule: 'unknown key in goal', good: { goal: { target: 'throughput' } }, bad: { goal: { traget: 'throughput' } }, path: 'goal.traget' },
  { rule: 'unknown key in sweep', good: { sweep: { max_rounds: 3 } }, bad: { sweep: { rounds: 3 } }, path: 'sweep.rounds' },
  // list knobs
  { rule: 'list knob entries legal', good: ss({ backend: ['vllm', 'sglang'] }), bad: ss({ backend: ['vllm', 'tensorrt'] }), path: 'search_space.backend[1]', message: 'not an allowed value' },
  { rule: 'list knob non-empty', good: ss({ router_mode: ['round_robin'] }), bad: ss({ router_mode: [] }), path: 'search_space.router_mode', message: 'at least 1' },
  { rule: 'numeric list knob legal', good: ss({ agg_max_num_seqs: [256, 1024] }), bad: ss({ agg_max_num_seqs: [300] }), path: 'search_space.agg_max_num_seqs[0]' },
  { rule: 'float list knob legal', good: ss({ router_temperature: [0.2, 0.5] }), bad: ss({ router_temperature: [0.3] }), path: 'search_space.router_temperature[0]' },
  { rule: 'list knob no duplicates', good: ss({ deployment_mode: ['agg'] }), bad: ss({ deployment_mode: ['agg', 'agg'] }), path: 'search_space.deployment_mode[1]', message: 'duplicate' },
  { rule: 'list knob must be a list', good: ss({ backend: ['vllm'] }), bad: ss({ backend: 'vllm' }), path: 'search_space.backend', message: 'expected a list' },
  // deployment scalars
  { rule: 'model_name non-empty', good: ss({ model_name: 'meta-llama/Llama-3.1-8B' }), bad: ss({ model_name: '' }), path: 'search_space.model_name' },
  { rule: 'model_name is a known model or a config.json', good: ss({ model_name: 'llama-3.1-8b-instruct' }), bad: ss({ model_name: 'acme/NoSuchModel-7B' }), path: 'search_space.model_name', message: "unknown model 'acme/NoSuchModel-7B'" },
  { rule: 'hardware_sku has a system file', good: ss({ hardware_sku: 'h200_sxm' }), bad: ss({ hardware_sku: 'h100_pcie' }), path: 'search_space.hardware_sku', message: 'unknown hardware_sku' },
  { rule: 'gpu_budget positive int', good: ss({ gpu_budget: 1 }), bad: ss({ gpu_budget: 0 }), path: 'search_space.gpu_budget' },
  { rule: 'min_gpu_budget > 0', good: ss({ min_gpu_budget: 1 }), bad: ss({ min_gpu_budget: 0 }), path: 'search_space.min_gpu_budget' },
  { rule: 'min_gpu_budget <= gpu_budget', good: ss({ min_gpu_budget: 8 }), bad: ss({ min_gpu_budget: 9 }), path: 'search_space.min_gpu_budget', message: 'must not exceed gpu_budget' },
  { rule: 'min_endpoint int >= 1', good: ss({ min_endpoint: 1 }), bad: ss({ min_endpoint: 0 }), path: 'search_space.min_endpoint' },
  { rule: 'aic_nextn int, not range-checked', good: ss({ aic_nextn: 9 }), bad: ss({ aic_nextn: 1.5 }), path: 'search_space.aic_nextn' },
  { rule: 'quantization choices', good: ss({ quantization: 'fp8_block' }), bad: ss({ quantization: 'int4' }), path: 'search_space.quantization' },
  { rule: 'kv_cache_dtype choices', good: ss({ kv_cache_dtype: 'fp8' }), bad: ss({ kv_cache_dtype: 'fp4' }), path: 'search_space.kv_cache_dtype' },
  { rule: 'decode prefix caching forced off', good: ss({ decode_enable_prefix_caching: false }), bad: ss({ decode_enable_prefix_caching: true }), path: 'search_space.decode_enable_prefix_caching' },
  // parallel_configs
  { rule: 'pinned parallel_configs need one mode', good: ss({ deployment_mode: ['agg'], parallel_configs: [{ tp: 2 }] }), bad: ss({ parallel_configs: [{ tp: 2 }] }), path: 'search_space.deployment_mode', message: 'exactly one mode' },
  { rule: 'pinned parallel_configs within gpu_budget', good: ss({ deployment_mode: ['agg'], parallel_configs: [{ tp: 4, replicas: 2 }] }), bad: ss({ deployment_mode: ['agg'], parallel_configs: [{ tp: 8 }, { tp: 4, attention_dp: 2, replicas: 2 }] }), path: 'search_space.parallel_configs[1]', message: 'uses 16 GPUs, more than gpu_budget 8' },
  { rule: 'agg shape requires tp', good: ss({ deployment_mode: ['agg'], parallel_configs: [{ tp: 4, moe_ep: 4, replicas: 2 }] }), bad: ss({ deployment_mode: ['agg'], parallel_configs: [{ moe_ep: 4 }] }), path: 'search_space.parallel_configs[0].tp', message: 'missing required key' },
  { rule: 'agg shape dims positive ints', good: ss({ deployment_mode: ['agg'], parallel_configs: [{ tp: 1, pp: 1 }] }), bad: ss({ deployment_mode: ['agg'], parallel_configs: [{ tp: 2, replicas: 0 }] }), path: 'search_space.parallel_configs[0].replicas' },
  { rule: 'agg shape unknown key', good: ss({ deployment_mode: ['agg'], parallel_configs: [{ tp: 2 }] }), bad: ss({ deployment_mode: ['agg'], parallel_configs: [{ tp: 2, dp: 2 }] }), path: 'search_space.parallel_configs[0].dp' },
  {
    rule: 'disagg entry = {prefill, decode} shapes',
    good: ss({ deployment_mode: ['disagg'], gpu_budget: 24, parallel_configs: [{ prefill: { tp: 8, moe_ep: 8 }, decode: { tp: 1, attention_dp: 8, moe_ep: 8, replicas: 2 } }] }),
    bad: ss({ deployment_mode: ['disagg'], parallel_configs: [{ prefill: { tp: 8 }, decode: { attention_dp: 2 } }] }),
    path: 'search_space.parallel_configs[0].decode.tp',
  },
  { rule: 'entry kind fits the mode', good: ss({ deployment_mode: ['agg'], parallel_configs: [{ tp: 2 }] }), bad: ss({ deployment_mode: ['disagg'], parallel_configs: [{ tp: 2 }] }), path: 'search_space.parallel_configs[0]', message: 'does not fit' },
  // KV manager, router, admission control
  { rule: 'kv_bytes_per_token required with G2', good: ss({ num_g2_blocks: 1000, kv_bytes_per_token: 131072 }), bad: ss({ num_g2_blocks: 1000 }), path: 'search_space.kv_bytes_per_token', message: 'required when num_g2_blocks > 0' },
  { rule: 'admission control rejected under kv_router', good: ss({ router_mode: ['round_robin'], active_decode_blocks_threshold: 100 }), bad: ss({ router_mode: ['kv_router', 'round_robin'], active_decode_blocks_threshold: 100 }), path: 'search_space.active_decode_blocks_threshold', message: 'admission control' },
  { rule: 'no_admission_control counts as set when true', good: ss({ router_mode: ['round_robin'], no_admission_control: true }), bad: ss({ no_admission_control: true }), path: 'search_space.no_admission_control' },
  { rule: 'admission fields at defaults are fine under kv_router', good: ss({ no_admission_control: false, active_prefill_tokens_threshold: null }), bad: ss({ active_prefill_tokens_threshold_frac: 0.5 }), path: 'search_space.active_prefill_tokens_threshold_frac' },
  // composites
  { rule: 'composite preset id legal', good: ss({ planner_fpm_sampling: ['small', 'fine'] }), bad: ss({ planner_fpm_sampling: ['tiny'] }), path: 'search_space.planner_fpm_sampling[0]', message: 'not an allowed value' },
  {
    rule: 'scaling policy dict needs all keys',
    good: ss({ planner_scaling_policy: [{ enable_throughput_scaling: false, enable_load_scaling: true, throughput_adjustment_interval_seconds: 60, load_adjustment_interval_seconds: 5 }] }),
    bad: ss({ planner_scaling_policy: [{ enable_throughput_scaling: false, enable_load_scaling: true, throughput_adjustment_interval_seconds: 60 }] }),
    path: 'search_space.planner_scaling_policy[0].load_adjustment_interval_seconds',
    message: 'missing required key',
  },
  { rule: 'composite dict unknown key', good: ss({ planner_load_sensitivity: [{ load_scaling_down_sensitivity: 75, load_min_observations: 4 }] }), bad: ss({ planner_load_sensitivity: [{ load_scaling_down_sensitivity: 75, load_min_observations: 4, extra: 1 }] }), path: 'search_space.planner_load_sensitivity[0].extra' },
  { rule: 'composite list non-empty', good: ss({ planner_load_sensitivity: ['default'] }), bad: ss({ planner_load_sensitivity: [] }), path: 'search_space.planner_load_sensitivity' },
  { rule: 'load predictor dict needs load_predictor', good: ss({ load_predictor_candidates: [{ load_predictor: 'kalman', kalman_r: 3 }] }), bad: ss({ load_predictor_candidates: [{ kalman_r: 3 }] }), path: 'search_space.load_predictor_candidates[0].load_predictor' },
  { rule: 'load predictor family legal', good: ss({ load_predictor_candidates: [{ load_predictor: 'arima' }] }), bad: ss({ load_predictor_candidates: [{ load_predictor: 'lstm' }] }), path: 'search_space.load_predictor_candidates[0].load_predictor' },
  { rule: 'load predictor field of another family', good: ss({ load_predictor_candidates: [{ load_predictor: 'prophet', prophet_window_size: 30 }] }), bad: ss({ load_predictor_candidates: [{ load_predictor: 'arima', prophet_window_size: 30 }] }), path: 'search_space.load_predictor_candidates[0].prophet_window_size', message: "only applies to load_predictor 'prophet'" },
  // planner vs goal
  { rule: 'throughput-only policies need an SLA goal', good: { search_space: { planner_scaling_policy: ['throughput_180_5', 'hybrid_600_5'] }, goal: goodputGoal }, bad: ss({ planner_scaling_policy: ['throughput_180_5', 'hybrid_600_5'] }), path: 'search_space.planner_scaling_policy', message: 'nothing is left to search' },
  {
    rule: 'a throughput-scaling dict counts as throughput scaling',
    good: { ...ss({ planner_scaling_policy: [{ enable_throughput_scaling: false, enable_load_scaling: true, throughput_adjustment_interval_seconds: 1, load_adjustment_interval_seconds: 5 }] }), goal: { target: 'e2e_latency' } },
    bad: { ...ss({ planner_scaling_policy: [{ enable_throughput_scaling: true, enable_load_scaling: false, throughput_adjustment_interval_seconds: 1, load_adjustment_interval_seconds: 5 }] }), goal: { target: 'e2e_latency' } },
    path: 'search_space.planner_scaling_policy',
  },
  { rule: 'e2e-only SLA keeps only static policies', good: { ...ss({ planner_scaling_policy: ['disabled', 'load_180_5'] }), goal: { target: 'goodput', sla: { e2e_ms: 9000 } } }, bad: { ...ss({ planner_scaling_policy: ['load_180_5', 'hybrid_180_5'] }), goal: { target: 'goodput', sla: { e2e_ms: 9000 } } }, path: 'search_space.planner_scaling_policy', message: 'e2e-only SLA' },
  // workload
  { rule: 'synthetic requires isl', good: {}, bad: wl({ isl: undefined }), path: 'workload.isl', message: "require 'isl'" },
  { rule: 'synthetic requires osl', good: {}, bad: wl({ osl: undefined }), path: 'workload.osl' },
  { rule: 'num_request_ratio > 0', good: wl({ num_request_ratio: 0.5 }), bad: wl({ num_request_ratio: 0 }), path: 'workload.num_request_ratio' },
  { rule: 'exactly one load field', good: wl({ concurrency: undefined, request_rate: 2.5 }), bad: wl({ request_rate: 2.5 }), path: 'workload.concurrency', message: 'exactly one load field' },
  { rule: 'synthetic without load (non-pareto)', good: wl({ concurrency: undefined, kv_load_ratio: 0.5 }), bad: wl({ concurrency: undefined }), path: 'workload', message: 'needs exactly one load field' },
  { rule: 'concurrency positive int', good: wl({ concurrency: 1 }), bad: wl({ concurrency: 2.5 }), path: 'workload.concurrency', message: 'integer' },
  { rule: 'kv_load_ratio in (0, 1]', good: wl({ concurrency: undefined, kv_load_ratio: 1 }), bad: wl({ concurrency: undefined, kv_load_ratio: 1.5 }), path: 'workload.kv_load_ratio', message: '<= 1' },
  { rule: 'kv_load_ratio range only under pareto', good: { workload: { ...synthetic, isl: 100, osl: 10, num_request_ratio: 1, kv_load_ratio: [0, 0.5] }, goal: { target: 'pareto' } }, bad: { workload: { ...synthetic, isl: 100, osl: 10, num_request_ratio: 1, kv_load_ratio: [0, 0.5] } }, path: 'workload.kv_load_ratio', message: 'only allowed under a pareto goal' },
  { rule: 'kv_load_ratio range ordered', good: { workload: { concurrency: undefined, kv_load_ratio: [0.2, 0.4] }, goal: { target: 'pareto' } }, bad: { workload: { concurrency: undefined, kv_load_ratio: [0.4, 0.2] }, goal: { target: 'pareto' } }, path: 'workload.kv_load_ratio', message: 'minimum exceeds maximum' },
  { rule: 'thorough rejects a kv_load_ratio range', good: { workload: { concurrency: undefined, kv_load_ratio: [0.2, 0.4] }, goal: { target: 'pareto' }, sweep: { policy: 'rapid' } }, bad: { workload: { concurrency: undefined, kv_load_ratio: [0.2, 0.4] }, goal: { target: 'pareto' }, sweep: { policy: 'thorough' } }, path: 'workload.kv_load_ratio', message: 'thorough' },
  { rule: 'arrival_speedup_ratio > 0', good: wl({ arrival_speedup_ratio: 0.5 }), bad: wl({ arrival_speedup_ratio: 0 }), path: 'workload.arrival_speedup_ratio' },
  { rule: 'random_range_ratio in (0, 1]', good: wl({ random_range_ratio: 0.5 }), bad: wl({ random_range_ratio: 0 }), path: 'workload.random_range_ratio' },
  { rule: 'random_seed non-negative int', good: wl({ random_seed: 12345 }), bad: wl({ random_seed: -1 }), path: 'workload.random_seed' },
  { rule: 'shared_prefix_ratio in [0, 1)', good: wl({ shared_prefix_ratio: 0 }), bad: wl({ shared_prefix_ratio: 1 }), path: 'workload.shared_prefix_ratio' },
  { rule: 'replay_concurrency is trace-only', good: {}, bad: wl({ replay_concurrency: 4 }), path: 'workload.replay_concurrency', message: 'trace' },
  { rule: 'trace forbids synthetic fields', good: { workload: { ...synthetic, trace_path: 'x' } }, bad: { workload: { ...synthetic, trace_path: 'x', isl: 100 } }, path: 'workload.isl', message: 'cannot be combined with trace_path' },
  { rule: 'trace forbids changed synthetic knobs', good: { workload: { ...synthetic, trace_path: 'x', random_range_ratio: 1 } }, bad: { workload: { ...synthetic, trace_path: 'x', turns_per_session: 3 } }, path: 'workload.turns_per_session' },
  { rule: 'trace replay_concurrency positive int', good: { workload: { ...synthetic, trace_path: 'x', replay_concurrency: 4 } }, bad: { workload: { ...synthetic, trace_path: 'x', replay_concurrency: 0 } }, path: 'workload.replay_concurrency' },
  { rule: 'workload needs a shape', good: {}, bad: { workload: synthetic }, path: 'workload', message: 'needs a shape' },
  // goal
  { rule: 'goal target choices', good: { goal: { target: 'e2e_latency' } }, bad: { goal: { target: 'latency' } }, path: 'goal.target' },
  { rule: 'goodput needs an SLA', good: { goal: goodputGoal }, bad: { goal: { target: 'goodput_per_gpu' } }, path: 'goal.sla', message: 'SLA is required' },
  { rule: 'pareto with a goodput objective needs an SLA', good: { goal: { target: 'pareto', pareto_objectives: ['goodput', 'throughput_per_user'], sla: { e2e_ms: 1000 } } }, bad: { goal: { target: 'pareto', pareto_objectives: ['goodput', 'throughput_per_user'] } }, path: 'goal.sla' },
  { rule: 'SLA allowed on other goals', good: { goal: { target: 'throughput', sla: { ttft_ms: 1, itl_ms: 1 } } }, bad: { goal: { target: 'throughput', sla: { ttft_ms: 1 } } }, path: 'goal.sla.itl_ms', message: 'go together' },
  { rule: 'SLA bounds > 0', good: { goal: { ...goodputGoal, sla: { e2e_ms: 1 } } }, bad: { goal: { ...goodputGoal, sla: { e2e_ms: 0 } } }, path: 'goal.sla.e2e_ms' },
  { rule: 'SLA needs a bound', good: { goal: goodputGoal }, bad: { goal: { target: 'goodput', sla: {} } }, path: 'goal.sla', message: 'at least one bound' },
  { rule: 'pareto objectives >= 2', good: { goal: { target: 'pareto', pareto_objectives: ['throughput', 'e2e_latency'] } }, bad: { goal: { target: 'pareto', pareto_objectives: ['throughput'] } }, path: 'goal.pareto_objectives' },
  { rule: 'pareto objectives distinct', good: { goal: { target: 'pareto', pareto_objectives: ['throughput', 'e2e_latency'] } }, bad: { goal: { target: 'pareto', pareto_objectives: ['throughput', 'throughput'] } }, path: 'goal.pareto_objectives[1]' },
  { rule: 'pareto objectives exclude pareto', good: { goal: { target: 'pareto' } }, bad: { goal: { target: 'pareto', pareto_objectives: ['pareto', 'throughput'] } }, path: 'goal.pareto_objectives[0]' },
  { rule: 'pareto_objectives only with pareto', good: { goal: { target: 'pareto', pareto_objectives: ['throughput', 'e2e_latency'] } }, bad: { goal: { target: 'throughput', pareto_objectives: ['throughput', 'e2e_latency'] } }, path: 'goal.pareto_objectives' },
  // sweep
  { rule: 'max_rounds >= 1', good: { sweep: { max_rounds: 1 } }, bad: { sweep: { max_rounds: 0 } }, path: 'sweep.max_rounds' },
  { rule: 'parallel_evals >= 1', good: { sweep: { parallel_evals: 1 } }, bad: { sweep: { parallel_evals: 0 } }, path: 'sweep.parallel_evals' },
  { rule: 'max_eval_seconds > 0 or null', good: { sweep: { max_eval_seconds: null } }, bad: { sweep: { max_eval_seconds: 0 } }, path: 'sweep.max_eval_seconds' },
  { rule: 'seed is u32', good: { sweep: { seed: 4294967295 } }, bad: { sweep: { seed: 4294967296 } }, path: 'sweep.seed' },
  { rule: 'policy choices', good: { sweep: { policy: 'thorough' } }, bad: { sweep: { policy: 'fast' } }, path: 'sweep.policy' },
  { rule: 'algorithm choices', good: { sweep: { algorithm: 'random' } }, bad: { sweep: { algorithm: 'cmaes' } }, path: 'sweep.algorithm' },
  // adapters
  { rule: 'no third-party providers installed', good: { adapters: {} }, bad: { adapters: { 'dynamo.router': { search_space: {} } } }, path: 'adapters["dynamo.router"]', message: "unknown provider 'dynamo.router' (installed providers: none)" },
];

describe('config rules', () => {
  it.each(RULES)('$rule: accepted', ({ good }) => {
    // The trace rules point at a file that does not exist: check them without the filesystem.
    const obj = withPatch(good);
    const trace = (obj.workload as Obj).trace_path;
    if (trace !== undefined) {
      const issues = issuesOf(() => load(obj));
      expect(issues.map((i) => i.path)).toEqual(['workload.trace_path']);
    } else {
      expect(() => load(obj)).not.toThrow();
    }
  });

  it.each(RULES)('$rule: rejected at $path', ({ bad, path, message }) => {
    const issues = issuesOf(() => load(withPatch(bad)));
    const hit = issues.find((i) => i.path === path);
    expect(hit, `issues were: ${JSON.stringify(issues, null, 1)}`).toBeDefined();
    if (message) expect(hit!.message).toContain(message);
    expect(hit!.allowed.length).toBeGreaterThan(0);
  });
});

describe('idempotence', () => {
  // The workflow receives a parsed config as JSON and validates it again: that must be a no-op.
  it.each([
    ['defaults', {}],
    ['pareto synthetic default range under thorough', { workload: { concurrency: undefined }, goal: { target: 'pareto' }, sweep: { policy: 'thorough' } }],
    ['goodput with dict composites', { goal: { target: 'goodput', sla: { ttft_ms: 100, itl_ms: 10 } }, search_space: { load_predictor_candidates: [{ load_predictor: 'kalman' }], planner_scaling_policy: ['disabled', { enable_throughput_scaling: true, enable_load_scaling: false, throughput_adjustment_interval_seconds: 60, load_adjustment_interval_seconds: 5 }] } }],
    ['pinned disagg', { search_space: { deployment_mode: ['disagg'], parallel_configs: [{ prefill: { tp: 2 }, decode: { tp: 2 } }], quantization: 'fp8' } }],
  ] as [string, Obj][])('%s', (_, patch) => {
    const once = load(withPatch(patch));
    expect(load(JSON.parse(JSON.stringify(once)))).toEqual(once);
  });
});

describe('defaults', () => {
  it('applies the seed defaults to an otherwise empty config', () => {
    const c = load(baseConfig());
    const s = c.search_space;
    expect(s.deployment_mode).toEqual(['disagg', 'agg']);
    expect(s.backend).toEqual(['vllm']);
    expect(s.min_gpu_budget).toBeNull();
    expect(s.parallel_configs).toEqual([]);
    expect(s.prefill_max_num_seqs).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256]);
    expect(s.decode_max_num_batched_tokens).toEqual([8192]);
    expect(s.decode_max_num_seqs).toEqual([256, 512, 1024]);
    expect(s.agg_max_num_batched_tokens).toEqual([8192, 16384, 32768]);
    expect([s.agg_block_size, s.agg_gpu_memory_utilization, s.agg_enable_prefix_caching]).toEqual([64, 0.9, true]);
    expect(s.decode_enable_prefix_caching).toBe(false);
    expect(s.num_g2_blocks).toBe(0);
    expect(s.router_mode).toEqual(['kv_router', 'round_robin']);
    expect(s.prefill_load_scale).toEqual([0, 0.25, 0.5, 1, 2, 4, 8, 16, 32]);
    expect(s.host_cache_hit_weight).toEqual([0.5, 0.75, 1.0]);
    expect(s.disk_cache_hit_weight).toEqual([0.0, 0.25, 0.5]);
    expect(s.no_admission_control).toBe(false);
    expect(s.planner_scaling_policy).toHaveLength(7);
    expect(s.planner_fpm_sampling).toEqual(['small', 'default', 'large', 'fine']);
    expect(s.planner_load_sensitivity).toEqual(['aggressive', 'default', 'conservative']);
    expect(s.load_predictor_candidates).toHaveLength(11);
    expect(s.quantization).toBeUndefined();
    expect(s.kv_cache_dtype).toBeUndefined();
    expect(c.workload).toMatchObject({
      arrival_speedup_ratio: 1.0,
      random_range_ratio: 1.0,
      random_seed: 0,
      shared_prefix_ratio: 0.0,
      num_prefix_groups: 0,
      turns_per_session: 1,
      inter_turn_delay_ms: 0.0,
      trace_format: 'mooncake',
      trace_block_size: 512,
    });
    expect(c.goal).toEqual({ target: 'throughput', strict_sla: false, pareto_objectives: ['throughput_per_gpu', 'throughput_per_user'] });
    expect(c.sweep).toEqual({
      max_rounds: 20,
      parallel_evals: 16,
      candidates_per_round: 16,
      max_eval_seconds: 600,
      seed: 0,
      policy: 'rapid',
      algorithm: 'bayesian',
    });
    expect(c.adapters).toEqual({});
  });

  it('candidates_per_round defaults to parallel_evals, and an explicit value wins', () => {
    expect(load(withPatch({ sweep: { parallel_evals: 5 } })).sweep.candidates_per_round).toBe(5);
    expect(load(withPatch({ sweep: { parallel_evals: 5, candidates_per_round: 2 } })).sweep.candidates_per_round).toBe(2);
  });

  it('parallel_configs shapes default omitted dims and replicas to 1', () => {
    const c = load(withPatch(ss({ deployment_mode: ['disagg'], gpu_budget: 16, parallel_configs: [{ prefill: { tp: 2 }, decode: { tp: 4, replicas: 3 } }] })));
    expect(c.search_space.parallel_configs[0]).toEqual({
      prefill: { tp: 2, attention_dp: 1, moe_tp: 1, moe_ep: 1, pp: 1, replicas: 1 },
      decode: { tp: 4, attention_dp: 1, moe_tp: 1, moe_ep: 1, pp: 1, replicas: 3 },
    });
  });

  it('synthetic pareto without a load field defaults to kv_load_ratio [0.0, 1.0]', () => {
    const c = load(withPatch({ workload: { concurrency: undefined }, goal: { target: 'pareto' } }));
    expect(c.workload.kv_load_ratio).toEqual([0, 1]);
    // …but an explicit load field is kept as given.
    expect(load(withPatch({ goal: { target: 'pareto' } })).workload.concurrency).toBe(8);
    expect(load(withPatch({ goal: { target: 'pareto' } })).workload.kv_load_ratio).toBeUndefined();
  });

  it('keeps only ttft/itl/e2e given in the SLA and strict_sla', () => {
    const c = load(withPatch({ goal: { target: 'goodput', sla: { e2e_ms: 100 }, strict_sla: true }, search_space: { planner_scaling_policy: ['disabled'] } }));
    expect(c.goal.sla).toEqual({ e2e_ms: 100 });
    expect(c.goal.strict_sla).toBe(true);
  });
});
