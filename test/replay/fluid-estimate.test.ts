// The fluid estimate (src/replay/fluid-estimate.ts) behind the optimizer's analytic prior
// (activities/analytic-prior.ts): on sampled candidates of a disagg and an agg branch its throughput
// and latencies track the replay's closely enough to rank candidates (median |log ratio| bounds just
// above what it reaches now — disagg 0.07 / 0.28 / 0.04, agg 0.06 / 0.30 / 0.12 on perf data 5c9232b2f069 — as ratchets), and the prior is pure (order and memo independent).
import { describe, expect, it } from 'vitest';
import { analyticPrior } from '../../activities/analytic-prior.js';
import { evaluateCandidate } from '../../activities/evaluate.js';
import { parseConfigText } from '../../src/config/load.js';
import { Prng } from '../../src/search/optimizer/prng.js';
import { SpaceCodec } from '../../src/search/optimizer/space.js';
import { planSweep } from '../../src/search/sweepPlan.js';
import { fluidEstimate } from '../../src/replay/fluid-estimate.js';
import { resolveReplay } from '../../src/replay/resolve.js';
import { sweptReplaySpec } from '../../src/search/deploymentRecord.js';
import { qwenDisaggYaml } from '../support/qwen-disagg.js';

const DISAGG = qwenDisaggYaml(1);
const AGG = `
search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  gpu_budget: 8
  deployment_mode: [agg]
  backend: [vllm, sglang]
  agg_max_num_batched_tokens: [8192, 16384]
  router_mode: [round_robin]
  planner_scaling_policy: [disabled]
workload: {isl: 2048, osl: 128, concurrency: 32, num_request_ratio: 2}
goal: {target: throughput_per_gpu}
sweep: {policy: rapid, seed: 1}
`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function sampled(yaml: string, n: number) {
  const config = parseConfigText(yaml, { sourceName: 'fluid' });
  const branch = planSweep(config).branches[0];
  const codec = new SpaceCodec(branch.plan.dimensions);
  const rng = Prng.fromSeed(3);
  const points = Array.from({ length: n }, () => codec.sampleUniform(rng));
  return { config, branch, points };
}

describe('fluid estimate of a deployment', () => {
  for (const [name, yaml, bounds] of [
    ['disagg (Qwen3-30B-A3B, H200)', DISAGG, { thr: 0.09, ttft: 0.31, tpot: 0.05 }],
    ['agg (Llama-3.1-8B, H100)', AGG, { thr: 0.07, ttft: 0.33, tpot: 0.13 }],
  ] as const) {
    it(`tracks the replay on sampled ${name} candidates`, () => {
      const { config, branch, points } = sampled(yaml, 10);
      const err = { thr: [] as number[], ttft: [] as number[], tpot: [] as number[] };
      for (const p of points) {
        const m = branch.materializer.materialize(p);
        const out = evaluateCandidate({ config, traceSha256: null }, m);
        if (!out.ok) continue;
        const r = resolveReplay(sweptReplaySpec(config, m.candidate!, m.concurrency, null));
        const est = fluidEstimate(
          { pools: r.deployment.pools, transfer: r.deployment.transfer, frontendMs: r.deployment.frontend?.fixedMs ?? 0, concurrency: r.concurrency ?? 1, numRequests: r.plan.numRequests },
          config.workload.isl!,
          config.workload.osl!,
        );
        err.thr.push(Math.abs(Math.log(est.output_throughput_tok_s / out.metrics.output_throughput_tok_s)));
        err.ttft.push(Math.abs(Math.log(est.mean_ttft_ms / out.metrics.mean_ttft_ms)));
        err.tpot.push(Math.abs(Math.log(est.mean_tpot_ms / out.metrics.mean_tpot_ms)));
        expect(est.avg_gpu).toBe(m.used_gpus);
      }
      expect(err.thr.length).toBeGreaterThanOrEqual(8);
      expect(median(err.thr)).toBeLessThan(bounds.thr);
      expect(median(err.ttft)).toBeLessThan(bounds.ttft);
      expect(median(err.tpot)).toBeLessThan(bounds.tpot);
    });
  }

  it('the analytic prior is pure: the same values in any order, memoized or not', () => {
    const { config, branch, points } = sampled(DISAGG, 40);
    const a = analyticPrior(config, branch.materializer)!(points);
    const b = analyticPrior(config, branch.materializer)!([...points].reverse()).reverse();
    expect(b).toEqual(a);
    expect(a.every((v) => v !== null && v[0] > 0)).toBe(true);
  });

  it('has no prior for trace workloads', () => {
    const config = parseConfigText(AGG.replace(/workload: .*\n/, 'workload: {trace_path: traces/mooncake-small.jsonl}\n'), { sourceName: 'fluid', baseDir: 'examples' });
    expect(analyticPrior(config, planSweep(config, { traceRequests: [] }).branches[0].materializer)).toBeNull();
  });
});
