// The planner through the Runner: runReplay(spec) — what sweeps call — builds the real controller
// from the spec's dynamo.planner adapter, with the real perf model (Llama-3.1-8B on H100 SXM).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GoalSchema, SearchSpaceSchema, WorkloadSchema } from '../../../src/config/schema.js';
import { canonicalJson } from '../../../src/config/canonical-json.js';
import { runReplay } from '../../../src/replay/resolve.js';
import { materializeReplaySpec, type ReplaySpec } from '../../../src/replay/spec.js';
import { phaseTraceText } from './traces.js';

const dir = mkdtempSync(join(tmpdir(), 'spica-planner-'));
const tracePath = join(dir, 'bursty.jsonl');
// Quiet, a burst, quiet again: 2 → 40 → 2 req/s of 1024/64-token requests.
writeFileSync(tracePath, phaseTraceText([{ seconds: 20, rps: 2 }, { seconds: 15, rps: 40 }, { seconds: 20, rps: 2 }], 1024, 64));

function spec(planner: Record<string, unknown>, goal: Record<string, unknown> = { target: 'goodput_per_gpu', sla: { ttft_ms: 400, itl_ms: 40 } }): ReplaySpec {
  return materializeReplaySpec(
    {
      deployment_mode: 'agg',
      backend: 'vllm',
      engine: { agg_max_num_batched_tokens: 8192, agg_max_num_seqs: 256 },
      parallel_config: { tp: 1, replicas: 3 },
      adapters: { 'dynamo.router': { router_mode: 'kv_router', overlap_score_credit: 1, prefill_load_scale: 1, router_temperature: 0 }, 'dynamo.planner': planner },
    },
    {
      searchSpace: SearchSpaceSchema.parse({
        model_name: 'meta-llama/Llama-3.1-8B-Instruct',
        hardware_sku: 'h100_sxm',
        deployment_mode: ['agg'],
        gpu_budget: 4,
        min_endpoint: 1,
        startup_time: 3,
      }),
      workload: WorkloadSchema.parse({ trace_path: tracePath }),
      goal: GoalSchema.parse(goal),
      concurrency: null,
      traceSha256: null,
    },
  );
}

const LOAD = { planner_scaling_policy: 'load_180_5', planner_fpm_sampling: 'default', planner_load_sensitivity: 'default' };

describe('runReplay with the planner', () => {
  it('materialization hands the planner its GPU budget and floor', () => {
    const cfg = spec(LOAD).adapters['dynamo.planner'].config;
    expect(cfg).toMatchObject({ max_gpu_budget: 4, min_endpoint: 1 });
  });

  it('runs the real planner by default, reports its counters, and is deterministic', () => {
    const a = runReplay(spec(LOAD));
    const b = runReplay(spec(LOAD));
    expect(a.metadata.planner).toBe('load_180_5');
    expect(a.metrics.planner_total_ticks).toBeGreaterThan(10);
    expect(a.metrics.planner_scale_downs).toBeGreaterThan(0);
    expect(a.metrics.max_replicas_agg).toBeLessThanOrEqual(4);
    expect(a.metrics.scaling_actions).toBeGreaterThan(0);
    expect(canonicalJson(a.metrics)).toBe(canonicalJson(b.metrics));
    const { wall_time_ms: _a, ...ma } = a.metadata;
    const { wall_time_ms: _b, ...mb } = b.metadata;
    expect(ma).toEqual(mb);
    // The static deployment it started from holds 3 GPUs throughout.
    const statik = runReplay(spec({ planner_scaling_policy: 'disabled' }));
    expect(statik.metadata.planner).toBe('static');
    expect(statik.metrics.planner_total_ticks).toBeUndefined();
    expect(a.metrics.avg_gpu).toBeLessThan(statik.metrics.avg_gpu);
  });

  it('a throughput policy under a non-SLA goal runs static and says why', () => {
    const r = runReplay(spec({ planner_scaling_policy: 'throughput_180_5' }, { target: 'throughput' }));
    expect(r.metadata.planner).toMatch(/^static \(scaling policy throughput_180_5 inactive: throughput scaling needs optimization_target sla/);
    expect(r.metrics.scaling_actions).toBe(0);
  });
});
