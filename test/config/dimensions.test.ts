// Branch planning: which knobs become dimensions, which are pinned, which are dropped and why.
import { describe, expect, it } from 'vitest';
import { planBranchDimensions, withParallelDimensions, type BranchDimensions } from '../../src/search/dimensions.js';
import { planLoadPredictor } from '../../src/search/loadPredictorPlan.js';
import { load, withPatch, type Obj } from './fixtures.js';

const plan = (patch: Obj) => planBranchDimensions(load(withPatch(patch)));
const names = (b: BranchDimensions) => b.dimensions.map((d) => d.name);
const dim = (b: BranchDimensions, name: string) => b.dimensions.find((d) => d.name === name);
const droppedRule = (b: BranchDimensions, name: string) => b.dropped.find((d) => d.name === name)?.rule;
const R = 'adapter::dynamo.router::';
const P = 'adapter::dynamo.planner::';

describe('planBranchDimensions', () => {
  it('one branch per deployment_mode, in config order', () => {
    expect(plan({}).branches.map((b) => b.deployment_mode)).toEqual(['disagg', 'agg']);
    expect(plan({ search_space: { deployment_mode: ['agg'] } }).branches.map((b) => b.deployment_mode)).toEqual(['agg']);
  });

  it('engine knobs of the branch roles only; numeric lists are log-scale discrete', () => {
    const { branches } = plan({});
    const [disagg, agg] = branches;
    expect(names(disagg)).toEqual(expect.arrayContaining(['prefill_max_num_batched_tokens', 'prefill_max_num_seqs', 'decode_max_num_seqs']));
    expect(names(disagg).some((n) => n.startsWith('agg_'))).toBe(false);
    expect(names(agg).some((n) => n.startsWith('prefill_') || n.startsWith('decode_'))).toBe(false);
    expect(dim(agg, 'agg_max_num_seqs')).toEqual({ name: 'agg_max_num_seqs', kind: 'discrete', values: [256, 512, 1024], log_scale: true });
    expect(dim(agg, 'agg_max_num_batched_tokens')?.log_scale).toBe(true);
    // decode_max_num_batched_tokens has one value: pinned, not searched.
    expect(disagg.pinned.decode_max_num_batched_tokens).toBe(8192);
    expect(disagg.pinned.decode_enable_prefix_caching).toBe(false);
    expect(disagg.pinned.prefill_block_size).toBe(64);
    expect(agg.pinned.agg_gpu_memory_utilization).toBe(0.9);
  });

  it('single-valued lists are pinned, multi-valued searched', () => {
    const [agg] = plan({ search_space: { deployment_mode: ['agg'], agg_max_num_seqs: [512], backend: ['vllm', 'sglang'] } }).branches;
    expect(agg.pinned.agg_max_num_seqs).toBe(512);
    expect(dim(agg, 'agg_max_num_seqs')).toBeUndefined();
    expect(dim(agg, 'backend')).toEqual({ name: 'backend', kind: 'categorical', values: ['vllm', 'sglang'] });
    const [agg1] = plan({ search_space: { deployment_mode: ['agg'] } }).branches;
    expect(agg1.pinned.backend).toBe('vllm');
  });

  it('trtllm is dropped from disagg with its rule, kept in agg', () => {
    const { branches } = plan({ search_space: { backend: ['vllm', 'trtllm'] } });
    const [disagg, agg] = branches;
    expect(disagg.backends).toEqual(['vllm']);
    expect(droppedRule(disagg, 'backend=trtllm')).toMatch(/replay rejects TRT-LLM disaggregation/);
    expect(agg.backends).toEqual(['vllm', 'trtllm']);
    expect(dim(agg, 'backend')?.values).toEqual(['vllm', 'trtllm']);
  });

  it('a mode with no backend left is skipped with a warning', () => {
    const r = plan({ search_space: { backend: ['trtllm'] } });
    expect(r.branches.map((b) => b.deployment_mode)).toEqual(['agg']);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/deployment_mode 'disagg' skipped/);
  });

  it('router knobs are namespaced and dropped without kv_router', () => {
    const [agg] = plan({ search_space: { deployment_mode: ['agg'] } }).branches;
    expect(dim(agg, `${R}router_mode`)?.values).toEqual(['kv_router', 'round_robin']);
    expect(dim(agg, `${R}overlap_score_credit`)).toEqual({ name: `${R}overlap_score_credit`, kind: 'discrete', values: [0, 0.5, 1] });
    expect(names(agg)).toContain(`${R}prefill_load_scale`);
    expect(names(agg)).toContain(`${R}router_temperature`);
    const [rr] = plan({ search_space: { deployment_mode: ['agg'], router_mode: ['round_robin'] } }).branches;
    expect(rr.pinned[`${R}router_mode`]).toBe('round_robin');
    expect(names(rr).filter((n) => n.startsWith(R))).toEqual([]);
    for (const k of ['overlap_score_credit', 'prefill_load_scale', 'router_temperature', 'host_cache_hit_weight', 'disk_cache_hit_weight'])
      expect(droppedRule(rr, `${R}${k}`)).toMatch(/no kv_router/);
  });

  it('host/disk cache-hit weights are searched only with G2 offload', () => {
    const [off] = plan({ search_space: { deployment_mode: ['agg'] } }).branches;
    expect(droppedRule(off, `${R}host_cache_hit_weight`)).toMatch(/num_g2_blocks is 0/);
    expect(droppedRule(off, `${R}disk_cache_hit_weight`)).toMatch(/num_g2_blocks is 0/);
    const [on] = plan({ search_space: { deployment_mode: ['agg'], num_g2_blocks: 4096, kv_bytes_per_token: 131072 } }).branches;
    expect(dim(on, `${R}host_cache_hit_weight`)?.values).toEqual([0.5, 0.75, 1.0]);
    // No disk tier is simulated: the disk weight cannot change a replay, so it is pinned, not searched.
    expect(dim(on, `${R}disk_cache_hit_weight`)).toBeUndefined();
    expect(droppedRule(on, `${R}disk_cache_hit_weight`)).toMatch(/no disk \(G3\) tier is simulated.*pinned to its first value 0/);
    expect(on.pinned[`${R}disk_cache_hit_weight`]).toBe(0);
  });

  it('throughput-scaling policies are dropped under a non-SLA goal, kept under goodput', () => {
    const [agg] = plan({ search_space: { deployment_mode: ['agg'] } }).branches;
    expect(dim(agg, `${P}scaling_policy`)?.values).toEqual(['disabled', 'load_180_5', 'load_180_10']);
    for (const id of ['throughput_180_5', 'throughput_600_5', 'hybrid_180_5', 'hybrid_600_5'])
      expect(droppedRule(agg, `${P}scaling_policy=${id}`)).toMatch(/needs an SLA/);
    expect(agg.scaling_policies).toEqual(['disabled', 'load_180_5', 'load_180_10']);

    const [sla] = plan({ search_space: { deployment_mode: ['agg'] }, goal: { target: 'goodput', sla: { ttft_ms: 500, itl_ms: 40 } } }).branches;
    expect(dim(sla, `${P}scaling_policy`)?.values).toHaveLength(7);
    expect(sla.dropped.filter((d) => d.name.startsWith(`${P}scaling_policy`))).toEqual([]);
  });

  it('an e2e-only SLA drops every scaling policy, and then FPM sampling and load sensitivity', () => {
    const [agg] = plan({
      search_space: { deployment_mode: ['agg'], planner_scaling_policy: ['disabled', 'load_180_5', 'hybrid_180_5'] },
      goal: { target: 'goodput', sla: { e2e_ms: 5000 } },
    }).branches;
    expect(agg.pinned[`${P}scaling_policy`]).toBe('disabled');
    expect(droppedRule(agg, `${P}scaling_policy=load_180_5`)).toMatch(/e2e-only SLA/);
    expect(droppedRule(agg, `${P}scaling_policy=hybrid_180_5`)).toMatch(/e2e-only SLA/);
    expect(droppedRule(agg, `${P}fpm_sampling`)).toMatch(/planner off/);
    expect(droppedRule(agg, `${P}load_sensitivity`)).toMatch(/planner off/);
  });

  it('FPM sampling and load sensitivity are searched while some kept policy scales', () => {
    const [agg] = plan({ search_space: { deployment_mode: ['agg'], planner_scaling_policy: ['disabled', 'load_180_5'] } }).branches;
    expect(dim(agg, `${P}fpm_sampling`)?.values).toEqual(['small', 'default', 'large', 'fine']);
    expect(dim(agg, `${P}load_sensitivity`)?.values).toEqual(['aggressive', 'default', 'conservative']);
    const dict = { load_scaling_down_sensitivity: 75, load_min_observations: 4 };
    const [withDict] = plan({ search_space: { deployment_mode: ['agg'], planner_load_sensitivity: ['default', dict] } }).branches;
    expect(dim(withDict, `${P}load_sensitivity`)?.values).toEqual(['default', '{"load_min_observations":4,"load_scaling_down_sensitivity":75}']);
  });

  it('a pareto kv_load_ratio range becomes a continuous dimension', () => {
    const [agg] = plan({ search_space: { deployment_mode: ['agg'] }, workload: { concurrency: undefined, kv_load_ratio: [0.2, 0.9] }, goal: { target: 'pareto' } }).branches;
    expect(dim(agg, 'kv_load_ratio')).toEqual({ name: 'kv_load_ratio', kind: 'continuous', values: [0.2, 0.9] });
    const [dflt] = plan({ search_space: { deployment_mode: ['agg'] }, workload: { concurrency: undefined }, goal: { target: 'pareto' } }).branches;
    expect(dim(dflt, 'kv_load_ratio')?.values).toEqual([0, 1]);
    const [scalar] = plan({ search_space: { deployment_mode: ['agg'] }, workload: { concurrency: undefined, kv_load_ratio: 0.5 } }).branches;
    expect(dim(scalar, 'kv_load_ratio')).toBeUndefined();
    expect(scalar.pinned.kv_load_ratio).toBe(0.5);
  });

  it('merges latent parallel features through the seam, pinning single-valued ones', () => {
    const r = planBranchDimensions(load(withPatch({ search_space: { deployment_mode: ['agg'] } })), {
      agg: [
        { name: 'used_gpu_ratio', kind: 'continuous', values: [0.25, 1] },
        { name: 'agg_attention_mode', kind: 'categorical', values: ['tp'] },
      ],
    });
    expect(dim(r.branches[0], 'used_gpu_ratio')?.kind).toBe('continuous');
    expect(r.branches[0].pinned.agg_attention_mode).toBe('tp');
    expect(() => withParallelDimensions(r.branches[0], [{ name: 'used_gpu_ratio', kind: 'continuous', values: [0, 1] }])).toThrow(/duplicate/);
  });
});

describe('planLoadPredictor', () => {
  const SLA = { target: 'goodput', sla: { ttft_ms: 500, itl_ms: 40 } };
  it('no throughput-scaling policy kept: not used', () => {
    const c = load(withPatch({ search_space: { deployment_mode: ['agg'] } }));
    expect(planLoadPredictor(c, planBranchDimensions(c).branches[0]).reason).toBe('no_throughput_scaling_candidate');
  });
  it('synthetic workload: constant_last', () => {
    const c = load(withPatch({ search_space: { deployment_mode: ['agg'] }, goal: SLA }));
    const lp = planLoadPredictor(c, planBranchDimensions(c).branches[0]);
    expect(lp.reason).toBe('static_workload_constant');
    expect(lp.intervals_seconds).toEqual([180, 600]);
    expect(lp.candidates).toHaveLength(11);
    expect(lp.fallback.spec).toEqual({ load_predictor: 'constant', load_predictor_log1p: false });
  });
});
