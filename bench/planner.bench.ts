// Planner cost and benefit: a bursty 5,000-request trace (quiet 2 req/s stretches, 40 req/s bursts,
// Poisson arrivals, 1024 ± 256 / 64 ± 32-token requests) replayed through runReplay — the path sweeps
// take — on Llama-3.1-8B / H100 SXM (real perf model), 3 vLLM workers, KV router, goodput SLA
// TTFT 400 ms / ITL 40 ms. Baseline: the same deployment static (planner disabled), same run.
// Reports wall time of each (and the planner's overhead ratio) and goodput per GPU of each.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { GoalSchema, SearchSpaceSchema, WorkloadSchema } from '../src/config/schema.js';
import { Prng } from '../src/replay/prng.js';
import type { ReplayReport } from '../src/replay/report.js';
import { runReplay } from '../src/replay/resolve.js';
import { materializeReplaySpec, type ReplaySpec } from '../src/replay/spec.js';

const REQUESTS = 5000;

/** Mooncake JSONL: alternating quiet (40 s at 2 req/s) and burst (25 s at 40 req/s) phases. */
export function burstyTrace(n: number, seed: number): string {
  const prng = new Prng(seed);
  const phases = [
    { seconds: 40, rps: 2 },
    { seconds: 25, rps: 40 },
  ];
  const lines: string[] = [];
  let t = 0;
  let phase = 0;
  let phaseEnd = phases[0].seconds * 1000;
  let nextId = 1;
  while (lines.length < n) {
    t += (-Math.log(1 - prng.next()) * 1000) / phases[phase].rps;
    while (t >= phaseEnd) {
      // Memoryless arrivals: restart the draw at the phase boundary with the new rate.
      t = phaseEnd;
      phase = (phase + 1) % phases.length;
      phaseEnd += phases[phase].seconds * 1000;
      t += (-Math.log(1 - prng.next()) * 1000) / phases[phase].rps;
    }
    const input = prng.int(768, 1280);
    const ids: number[] = [];
    for (let k = Math.ceil(input / 512); k > 0; k--) ids.push(nextId++);
    lines.push(JSON.stringify({ timestamp: Math.round(t), input_length: input, output_length: prng.int(32, 96), hash_ids: ids }));
  }
  return lines.join('\n') + '\n';
}

function spec(tracePath: string, planner: Record<string, unknown>): ReplaySpec {
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
        gpu_budget: 8,
        startup_time: 5,
      }),
      workload: WorkloadSchema.parse({ trace_path: tracePath }),
      goal: GoalSchema.parse({ target: 'goodput_per_gpu', sla: { ttft_ms: 400, itl_ms: 40 } }),
      concurrency: null,
      traceSha256: null,
    },
  );
}

function timed(s: ReplaySpec, reps: number): { report: ReplayReport; ms: number } {
  let best = Infinity;
  let report!: ReplayReport;
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    report = runReplay(s);
    best = Math.min(best, performance.now() - t0);
  }
  return { report, ms: best };
}

const perGpu = (m: Record<string, number>) => (m.avg_gpu > 0 ? m.goodput_output_throughput_tok_s / m.avg_gpu : 0);

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'spica-planner-bench-'));
  try {
    const tracePath = join(dir, 'bursty.jsonl');
    writeFileSync(tracePath, burstyTrace(REQUESTS, 7));
    const statik = spec(tracePath, { planner_scaling_policy: 'disabled' });
    const load = spec(tracePath, { planner_scaling_policy: 'load_180_5', planner_fpm_sampling: 'default', planner_load_sensitivity: 'default' });
    runReplay(statik); // warm-up: JIT, perf-model coefficient load
    const s = timed(statik, 3);
    const l = timed(load, 3);
    const sm = s.report.metrics;
    const lm = l.report.metrics;
    const row = (name: string, ms: number, m: Record<string, number>) =>
      console.log(
        `${name.padEnd(14)} wall ${ms.toFixed(0).padStart(5)} ms  avg_gpu ${m.avg_gpu.toFixed(2)}  goodput ${m.goodput_output_throughput_tok_s.toFixed(0).padStart(5)} tok/s` +
          `  goodput/GPU ${perGpu(m).toFixed(1).padStart(6)}  good requests ${((100 * m.goodput_request_throughput_rps) / m.request_throughput_rps).toFixed(1)}%`,
      );
    console.log(`bursty trace: ${REQUESTS} requests over ${(sm.duration_ms / 1000).toFixed(0)} s, Llama-3.1-8B on h100_sxm, 3 workers to start, SLA 400/40 ms`);
    row('static', s.ms, sm);
    row('load_180_5', l.ms, lm);
    console.log(
      `planner: ${lm.planner_total_ticks} ticks, ${lm.planner_scale_ups} ups, ${lm.planner_scale_downs} downs, max ${lm.max_replicas_agg} replicas, ${lm.planner_pending_holds} pending holds`,
    );
    console.log(`ratio wall time load/static: ${(l.ms / s.ms).toFixed(2)}×   goodput/GPU load/static: ${(perGpu(lm) / perGpu(sm)).toFixed(2)}×`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
