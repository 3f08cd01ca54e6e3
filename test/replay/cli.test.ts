// End to end with the real model catalog, system files and perf model, through `spica replay`.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const example = (name: string) => `${root}examples/${name}`;

async function spica(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { stdout: (t) => (out += t), stderr: (t) => (err += t), isTty: false });
  return { code, out, err };
}

const aggCandidate = JSON.stringify({
  deployment_mode: 'agg',
  backend: 'vllm',
  engine: { agg_max_num_batched_tokens: 8192, agg_max_num_seqs: 256 },
  parallel_config: { tp: 1, replicas: 2 },
  adapters: { 'dynamo.router': { router_mode: 'kv_router', overlap_score_credit: 1.0, prefill_load_scale: 1.0 } },
});

describe('spica replay', () => {
  it('--json prints one {"metrics","metadata"} document; metrics are deterministic', async () => {
    const a = await spica(['replay', example('dense-agg-throughput.yaml'), '--candidate', aggCandidate, '--json']);
    expect(a.err).toBe('');
    expect(a.code).toBe(0);
    const doc = JSON.parse(a.out) as { metrics: Record<string, number>; metadata: Record<string, unknown> };
    expect(Object.keys(doc)).toEqual(['metrics', 'metadata']);
    for (const k of ['output_throughput_tok_s', 'mean_ttft_ms', 'p99_itl_ms', 'mean_e2e_latency_ms', 'goodput_output_throughput_tok_s', 'gpu_hours', 'avg_gpu'])
      expect(doc.metrics[k]).toBeGreaterThan(0);
    expect(doc.metrics.completed_requests).toBe(64);
    expect(doc.metadata.spec_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(doc.metadata.used_gpus).toBe(2);
    const b = await spica(['replay', example('dense-agg-throughput.yaml'), '--candidate', aggCandidate, '--json']);
    const docB = JSON.parse(b.out) as typeof doc;
    expect(JSON.stringify(docB.metrics)).toBe(JSON.stringify(doc.metrics));
    const { wall_time_ms: _a, ...metaA } = doc.metadata;
    const { wall_time_ms: _b, ...metaB } = docB.metadata;
    expect(metaB).toEqual(metaA);
  });

  it('replays a Mooncake trace config, hash-checking the trace', async () => {
    const cand = JSON.stringify({
      deployment_mode: 'agg',
      backend: 'vllm',
      engine: { agg_max_num_batched_tokens: 8192 },
      parallel_config: { tp: 2, replicas: 2 },
      adapters: { 'dynamo.router': { prefill_load_scale: 1.0 }, 'dynamo.planner': { planner_scaling_policy: 'disabled', planner_load_sensitivity: 'default' } },
    });
    const r = await spica(['replay', example('trace-planner-goodput.yaml'), '--candidate', cand, '--json']);
    expect(r.err).toBe('');
    const doc = JSON.parse(r.out) as { metrics: Record<string, number>; metadata: Record<string, unknown> };
    expect(doc.metrics.completed_requests).toBe(readFileSync(`${root}examples/traces/mooncake-wave.jsonl`, 'utf8').trim().split('\n').length);
    expect(doc.metrics.prefix_cache_hit_rate).toBeGreaterThan(0.2);
    expect(doc.metrics.goodput_request_throughput_rps).toBeLessThanOrEqual(doc.metrics.request_throughput_rps);
  });

  it('on the load wave of the planner example the planner policies rank differently under the SLA', async () => {
    // goodput_per_gpu as the sweep scores it: SLA-meeting output tokens/s over the average GPUs held.
    const goodputPerGpu = async (replicas: number, policy: string): Promise<number> => {
      const cand = JSON.stringify({
        deployment_mode: 'agg',
        backend: 'vllm',
        engine: { agg_max_num_batched_tokens: 8192 },
        parallel_config: { tp: 2, replicas },
        adapters: { 'dynamo.router': { prefill_load_scale: 1.0 }, 'dynamo.planner': { planner_scaling_policy: policy, planner_load_sensitivity: 'default' } },
      });
      const r = await spica(['replay', example('trace-planner-goodput.yaml'), '--candidate', cand, '--json']);
      expect(r.err).toBe('');
      const m = (JSON.parse(r.out) as { metrics: Record<string, number> }).metrics;
      return m.goodput_output_throughput_tok_s / m.avg_gpu;
    };
    const sizedForTrough = await goodputPerGpu(1, 'disabled'); // misses the SLA at the peaks
    const sizedForPeak = await goodputPerGpu(4, 'disabled'); // meets it, idles in the troughs
    const loadPlanner = await goodputPerGpu(2, 'load_180_5'); // follows the wave
    const throughputPlanner = await goodputPerGpu(1, 'throughput_180_5'); // reacts every 180 s: too late
    expect(sizedForTrough).toBeLessThan(0.5 * loadPlanner);
    expect(sizedForPeak).toBeLessThan(0.7 * loadPlanner);
    expect(throughputPlanner).toBeLessThan(0.7 * loadPlanner);
  });

  it('disagg with a kv_load_ratio range needs --kv-load-ratio; the derived concurrency is recorded', async () => {
    const cand = JSON.stringify({
      deployment_mode: 'disagg',
      backend: 'vllm',
      engine: { prefill_max_num_batched_tokens: 8192, prefill_max_num_seqs: 16, decode_max_num_seqs: 256 },
      parallel_config: { prefill: { tp: 2, replicas: 1 }, decode: { tp: 2, replicas: 1 } },
    });
    const bad = await spica(['replay', example('moe-disagg-pareto.yaml'), '--candidate', cand]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--kv-load-ratio/);
    const r = await spica(['replay', example('moe-disagg-pareto.yaml'), '--candidate', cand, '--kv-load-ratio', '0.05', '--json']);
    expect(r.err).toBe('');
    const doc = JSON.parse(r.out) as { metrics: Record<string, number>; metadata: Record<string, number> };
    expect(doc.metadata.concurrency).toBeGreaterThan(0);
    expect(doc.metrics.completed_requests).toBe(Math.max(1, Math.round(2 * doc.metadata.concurrency)));
    expect(doc.metadata.pd_transfer_bandwidth_gbps).toBeGreaterThan(0);
    expect(doc.metrics.mean_kv_transfer_ms).toBeGreaterThan(0);
  });

  it('without --candidate a config that still searches something is a usage error naming it', async () => {
    const r = await spica(['replay', example('dense-agg-throughput.yaml')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/searches|--candidate/);
  });

  it('refuses a deployment beyond gpu_budget (exit 2): a --candidate, and a pin when the config loads', async () => {
    const big = JSON.stringify({ deployment_mode: 'agg', backend: 'vllm', engine: { agg_max_num_batched_tokens: 8192, agg_max_num_seqs: 256 }, parallel_config: { tp: 8, replicas: 2 }, adapters: { 'dynamo.router': { router_mode: 'round_robin' } } });
    const r = await spica(['replay', example('dense-agg-throughput.yaml'), '--candidate', big, '--json']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/--candidate uses 16 GPUs, more than search_space.gpu_budget 8/);
    const dir = mkdtempSync(join(tmpdir(), 'spica-budget-'));
    const yaml = readFileSync(example('dense-agg-throughput.yaml'), 'utf8').replace('  deployment_mode: [agg]\n', '  deployment_mode: [agg]\n  parallel_configs:\n    - {tp: 8, attention_dp: 8}\n');
    writeFileSync(join(dir, 'pinned.yaml'), yaml);
    const p = await spica(['replay', join(dir, 'pinned.yaml'), '--candidate', aggCandidate]);
    expect(p.code).toBe(2);
    expect(p.err).toMatch(/pinned.yaml:9:\d+: search_space.parallel_configs\[0\]: this pinned deployment uses 64 GPUs, more than gpu_budget 8/);
  });
});
