// A `spica worker` runs two small sweeps in-process before it polls: the `--local` engine (plan,
// optimizer asks, materialization, replays on the worker's own replay threads), nothing cached or
// stored, no workflow. A fresh worker otherwise pays first execution — V8 compiling and optimizing
// the planner's, optimizer's and simulator's functions on first call, zod's generated parsers, in the
// main thread and in every replay thread — inside the first sweep handed to it: that sweep cost as much
// as a sweep starting its own worker (`npm run bench temporal`, dense example 1.52× --local against
// 1.27× with a warm-up of ~0.2 s, 2026-12-05). Sized so that V8 also gets to optimize what a
// sweep runs hot (its optimizing compiler acts only on functions that ran a while): with two sweeps of
// 2–3 rounds of 2 (~0.2 s) a fresh `spica server`'s first dense-example sweep took 1.22–1.40 s and
// 1.07–1.20 s of worker CPU; with these (~0.8 s) 1.00–1.05 s and 0.77–0.85 s; with twice their rounds
// (~1.8 s) 0.96–1.09 s and 0.67–0.79 s (3 runs each, --local 0.9 s). The Temporal side (workflow thread, activations) stays cold:
// only real tasks warm it. Skipped under SPICA_TEST_HOOKS, whose hang/OOM hooks match candidates by
// their config and could catch the warm-up's.
import { runLocalSweep } from '../../../activities/local-sweep.js';
import { parseConfigText } from '../../config/load.js';

/**
 * Two quick sweeps (~0.8 s together on a 2-core box): a dense model aggregated on up to 8 GPUs with
 * both router modes (single goal), and an MoE model disaggregated with both backends (Pareto goal), so
 * that both branch kinds, the tensor- and expert-parallel shapes, the KV-aware router and the
 * multi-objective optimizer are warm.
 */
const WARM_UP_CONFIGS = [
  `search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  gpu_budget: 8
  deployment_mode: [agg]
  backend: [vllm]
  router_mode: [kv_router, round_robin]
workload:
  isl: 128
  osl: 64
  concurrency: 4
  num_request_ratio: 4
goal:
  target: throughput
sweep:
  max_rounds: 4
  candidates_per_round: 4
  parallel_evals: 4
  max_eval_seconds: 30
  seed: 5
`,
  `search_space:
  model_name: Qwen/Qwen3-30B-A3B
  hardware_sku: h200_sxm
  gpu_budget: 4
  deployment_mode: [disagg]
  backend: [vllm, sglang]
workload:
  isl: 256
  osl: 32
  concurrency: 4
  num_request_ratio: 2
goal:
  target: pareto
  pareto_objectives: [throughput_per_gpu, throughput_per_user]
sweep:
  max_rounds: 2
  candidates_per_round: 4
  parallel_evals: 4
  max_eval_seconds: 30
  seed: 5
`,
];

/** Runs the warm-up sweeps; their wall time in ms, or null when skipped. Never throws: a worker without it is only slower. */
export async function warmUpWorker(env: NodeJS.ProcessEnv = process.env): Promise<number | null> {
  if (env.SPICA_TEST_HOOKS === '1') return null;
  const t0 = performance.now();
  try {
    for (const yaml of WARM_UP_CONFIGS) await runLocalSweep(parseConfigText(yaml, { sourceName: 'worker warm-up' }));
  } catch {
    return null;
  }
  return performance.now() - t0;
}
