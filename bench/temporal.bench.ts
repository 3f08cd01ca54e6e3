// Temporal overhead of a durable sweep (CLARIFICATIONS §E: replays of about 1 s each). The same
// config (one agg branch, 3 rounds × 2 candidates, parallel_evals 2) runs (a) in-process with
// runSweepLocal — the baseline, serial replays — and (b) as the `sweep` workflow on an embedded dev
// server with an in-process worker (replay threads = cores), fresh result cache; then (c) again with
// the warm cache, which is pure orchestration cost (no replay runs). Bundling and thread boot are
// done before timing. Prints wall times, the (b)/(a) ratio and the per-trial orchestration cost.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { runLocalSweep } from '../activities/local-sweep.js';
import { replayPool } from '../activities/replay-pool.js';
import { provisionTemporalCli } from '../src/cli/temporal/cli-binary.js';
import { loadDevServerConfig } from '../src/cli/temporal/dev-config.js';
import { startDevServer } from '../src/cli/temporal/dev-server.js';
import { freePort } from '../src/cli/temporal/free-port.js';
import { createSpicaWorker } from '../src/cli/temporal/worker.js';
import { parseConfigText } from '../src/config/load.js';
import type { SweepResult } from '../src/search/sweepResult.js';
import type { sweep } from '../workflows/sweep.js';

const CONFIG_YAML = `search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  gpu_budget: 2
  deployment_mode: [agg]
  backend: [vllm]
workload:
  isl: 4096
  osl: 1024
  concurrency: 48
  num_request_ratio: 64
goal:
  target: throughput
sweep:
  max_rounds: 3
  candidates_per_round: 2
  parallel_evals: 2
  seed: 5
`;

const strip = (r: SweepResult) => JSON.stringify({ ...r, sweep_id: null, counts: { ...r.counts, cache_hits: 0 } });

export async function run(): Promise<void> {
  const config = parseConfigText(CONFIG_YAML);
  let t0 = performance.now();
  const local = await runLocalSweep(config);
  const localMs = performance.now() - t0;
  const trials = local.counts.evaluated;

  process.env.SPICA_CACHE_DIR = mkdtempSync(path.join(os.tmpdir(), 'spica-bench-cache-'));
  const cli = await provisionTemporalCli({ log: () => undefined });
  const server = await startDevServer(
    { ...loadDevServerConfig(), port: await freePort(), ui: { enabled: false }, db_filename: null, log_level: 'error', startup_timeout_seconds: 90 },
    { cliPath: cli.path, reuse: false },
  );
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });
  const taskQueue = 'bench-temporal';
  const spica = await createSpicaWorker({ address: server.address, namespace: server.namespace, taskQueue });
  try {
    const timings = await spica.worker.runUntil(async () => {
      // Warm-up outside the timing: the threads boot (prewarmed by the worker) and the first workflow task runs.
      while (replayPool().stats().threads < replayPool().size) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 2500));
      const runOnce = async (id: string) => {
        const start = performance.now();
        const result = (await client.workflow.execute<typeof sweep>('sweep', { workflowId: id, taskQueue, args: [config] })) as SweepResult;
        return { ms: performance.now() - start, result };
      };
      const cold = await runOnce('bench-cold');
      const warm = await runOnce('bench-warm');
      return { cold, warm };
    });
    const { cold, warm } = timings;
    if (strip(cold.result) !== strip(local)) throw new Error('the workflow result differs from runSweepLocal');
    console.log(`config: ${trials} trials, replays ~${(localMs / trials / 1000).toFixed(2)} s each (in-process), ${replayPool().size} replay threads`);
    console.log(`baseline runSweepLocal (serial, in-process): ${(localMs / 1000).toFixed(2)} s`);
    console.log(`sweep workflow, fresh cache:                 ${(cold.ms / 1000).toFixed(2)} s   ratio vs baseline ${(cold.ms / localMs).toFixed(2)}×`);
    console.log(`sweep workflow, warm cache (no replays):     ${(warm.ms / 1000).toFixed(2)} s   = ${(warm.ms / trials).toFixed(0)} ms orchestration per trial; ${warm.result.counts.cache_hits} cache hits`);
  } finally {
    await spica.close();
    await connection.close();
    await server.stop();
  }
}
