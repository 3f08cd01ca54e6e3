import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/config/canonical-json.js';
import { specHash } from '../../src/replay/spec-hash.js';
import { materializeReplaySpec, parseReplaySpec, routerSettingsOf, type MaterializeContext } from '../../src/replay/spec.js';
import { GoalSchema, SearchSpaceSchema, WorkloadSchema } from '../../src/config/schema.js';

function context(over: Record<string, unknown> = {}): MaterializeContext {
  return {
    searchSpace: SearchSpaceSchema.parse({
      model_name: 'meta-llama/Llama-3.1-8B-Instruct',
      hardware_sku: 'h100_sxm',
      deployment_mode: ['agg'],
      agg_max_num_batched_tokens: [8192, 16384],
      router_mode: ['kv_router', 'round_robin'],
      ...over,
    }),
    workload: WorkloadSchema.parse({ isl: 512, osl: 64, concurrency: 8, num_request_ratio: 4 }),
    goal: GoalSchema.parse({ target: 'goodput', sla: { ttft_ms: 500, itl_ms: 50 } }),
    concurrency: null,
    traceSha256: null,
  };
}

const candidate = {
  deployment_mode: 'agg' as const,
  backend: 'vllm' as const,
  engine: { agg_max_num_batched_tokens: 16384, agg_max_num_seqs: 512 },
  parallel_config: { tp: 2, replicas: 3 },
  adapters: { 'dynamo.router': { router_mode: 'kv_router', overlap_score_credit: 0.5, prefill_load_scale: 2, router_temperature: 0.2 }, 'dynamo.planner': { planner_scaling_policy: 'disabled' } },
};

describe('canonical JSON', () => {
  it('sorts keys at every depth, is compact, and rejects NaN/Infinity', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 'x' }], e: null })).toBe('{"a":[{"c":"x","d":2}],"b":1,"e":null}');
    expect(canonicalJson({ x: undefined, y: 1 })).toBe('{"y":1}');
    expect(() => canonicalJson({ a: NaN })).toThrow(/non-finite number at \$\.a/);
    expect(() => canonicalJson([1, Infinity])).toThrow(/\$\[1\]/);
  });
});

describe('ReplaySpec', () => {
  it('materializes the flat candidate form with pinned values from the search space', () => {
    const spec = materializeReplaySpec(candidate, context());
    const bd = spec.backend_deployment;
    expect(spec.api_version).toBe(1);
    expect(bd.agg_engine_args).toMatchObject({ max_num_batched_tokens: 16384, max_num_seqs: 512, block_size: 64, gpu_memory_utilization: 0.9, enable_prefix_caching: true });
    expect(bd.num_workers).toBe(3);
    expect(bd.parallel_config).toEqual({ tp: 2, attention_dp: 1, moe_tp: 1, moe_ep: 1, pp: 1, replicas: 3 });
    expect(routerSettingsOf(spec)).toMatchObject({ router_mode: 'kv_router', overlap_score_credit: 0.5, prefill_load_scale: 2, router_temperature: 0.2 });
    const hooks = spec.adapters['dynamo.router'].runtime_hooks;
    expect(hooks[0]).toMatchObject({ provider: 'dynamo.router', kind: 'placement_policy', api_version: 1 });
    expect(spec.adapters['dynamo.planner'].config).toMatchObject({ planner_scaling_policy: 'disabled' });
  });

  it('a searched knob the candidate leaves out is an error naming it', () => {
    const { agg_max_num_batched_tokens: _, ...engine } = candidate.engine;
    expect(() => materializeReplaySpec({ ...candidate, engine }, context())).toThrow(/agg_max_num_batched_tokens/);
  });

  it('disagg specs carry both roles and worker counts', () => {
    const spec = materializeReplaySpec(
      {
        deployment_mode: 'disagg',
        backend: 'vllm',
        engine: { prefill_max_num_batched_tokens: 8192, prefill_max_num_seqs: 16, decode_max_num_seqs: 256 },
        parallel_config: { prefill: { tp: 1, replicas: 2 }, decode: { tp: 2, replicas: 1 } },
        adapters: { 'dynamo.router': { router_mode: 'round_robin' } },
      },
      context({ deployment_mode: ['disagg'] }),
    );
    const bd = spec.backend_deployment;
    expect(bd.num_prefill_workers).toBe(2);
    expect(bd.num_decode_workers).toBe(1);
    expect(bd.decode_engine_args?.enable_prefix_caching).toBe(false);
    expect(bd.agg_engine_args).toBeUndefined();
  });

  it('specHash is the sha256 of canonical JSON: stable under key order, sensitive to values', () => {
    const a = materializeReplaySpec(candidate, context());
    const reverse = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(reverse) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reverse(x)])) : v;
    const shuffled = reverse(a);
    expect(JSON.stringify(shuffled)).not.toBe(JSON.stringify(a));
    expect(specHash(parseReplaySpec(shuffled))).toBe(specHash(a));
    expect(specHash(a)).toMatch(/^[0-9a-f]{64}$/);
    const b = materializeReplaySpec({ ...candidate, engine: { ...candidate.engine, agg_max_num_seqs: 256 } }, context());
    expect(specHash(b)).not.toBe(specHash(a));
    expect(specHash(parseReplaySpec({ ...a, seed: 1 }))).not.toBe(specHash(a));
  });

  it('rejects a spec whose parallel config does not fit its mode', () => {
    const a = materializeReplaySpec(candidate, context());
    expect(() => parseReplaySpec({ ...a, backend_deployment: { ...a.backend_deployment, deployment_mode: 'disagg' } })).toThrow(/parallel_config does not fit/);
    expect(() => parseReplaySpec({ ...a, api_version: 2 })).toThrow(/api_version/);
  });
});

describe('P/D transfer bandwidth (Clarification D)', () => {
  it('per-GPU link (intra-node if the deployment fits one node) × the sending worker GPUs', async () => {
    const { pdBandwidthGBps } = await import('../../src/replay/resolve.js');
    const sys = { gpusPerNode: 8, intraNodeBwBps: 450e9, interNodeBwBps: 50e9 } as Parameters<typeof pdBandwidthGBps>[0];
    expect(pdBandwidthGBps(sys, 8, 2)).toBe(900);
    expect(pdBandwidthGBps(sys, 16, 4)).toBe(200);
  });
});
