// The large-sweep scenario (issue 16 item 1), shared by test/temporal/large-sweep.test.ts and
// `npm run bench temporal`: a thorough sweep of 11,664 trials over agg + disagg (5,832 each; tiny
// replays of ~15 ms) on two `spica worker` processes with separate local directories and one
// shared PostgreSQL store. The first run is terminated part-way, `spica resume` finishes it in a
// new run, and `spica result` in a third process reads the stored result. Everything is real
// Temporal; the figures include the largest payload over every history involved.
import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Client } from '@temporalio/client';
import { historyPayloads, type PayloadFigures } from '../../src/cli/temporal/history-payloads.js';
import { parseConfigText } from '../../src/config/load.js';
import type { SweepResult } from '../../src/search/sweepResult.js';
import { liveSweepProgress } from '../../src/cli/sweeps/live-progress.js';
import { branchWorkflowId, type sweep } from '../../workflows/sweep.js';
import { processCpuSeconds, spawnSpica } from './spica-process.js';

/**
 * `router_temperature` and `overlap_score_credit` lists scale the space (4 × 3 of them: 11,664 trials
 * under `thorough`). `policy: 'rapid'`: the default optimizer (bayesian) over the same space with eight
 * `prefill_max_num_seqs`, 64 candidates per round for up to 120 rounds — 10,521 trials (no repeats:
 * the optimizer asks through the projection), 7,680 of them in the disagg branch (one optimizer told
 * every one of them).
 */
export function largeSweepYaml(opts: { temperatures?: string; overlaps?: string; policy?: 'thorough' | 'rapid' } = {}): string {
  const rapid = opts.policy === 'rapid';
  return `search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  gpu_budget: 2
  deployment_mode: [agg, disagg]
  backend: [vllm]
  prefill_max_num_seqs: ${rapid ? '[1, 2, 4, 8, 16, 32, 64, 128]' : '[4, 8, 16]'}
  router_temperature: ${opts.temperatures ?? '[0.0, 0.2, 0.5, 1.0]'}
  overlap_score_credit: ${opts.overlaps ?? '[0.0, 0.5, 1.0]'}
  planner_scaling_policy: [disabled]
  planner_fpm_sampling: [default]
  planner_load_sensitivity: [default]
workload:
  isl: 32
  osl: 4
  concurrency: 1
  num_request_ratio: 1
goal:
  target: throughput
sweep:
${rapid ? '  policy: rapid\n  max_rounds: 120\n  candidates_per_round: 64' : '  policy: thorough'}
  parallel_evals: 64
  seed: 5
`;
}

async function until(what: string, fn: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface LargeSweepFigures {
  trialsWanted: number;
  /** Trials the first run had finished when it was terminated. */
  trialsAtTermination: number;
  result: SweepResult;
  resultBytes: number;
  firstRunSeconds: number;
  resumeSeconds: number;
  payloads: PayloadFigures;
  /** Files the workers wrote into their own local directories (the shared store holds everything). */
  localFiles: number;
  workerCpuSeconds: number | null;
  /** The terminated run's and the resumed run's sweep workflow ids. */
  sweepIds: [string, string];
}

export async function runLargeSweep(opts: {
  client: Client;
  address: string;
  namespace: string;
  storeUrl: string;
  yaml?: string;
  /** Terminate the first run once this share of the trials is done (default 0.3). */
  terminateAt?: number;
  log?: (line: string) => void;
}): Promise<LargeSweepFigures> {
  const log = opts.log ?? (() => undefined);
  const yaml = opts.yaml ?? largeSweepYaml();
  const config = parseConfigText(yaml);
  const taskQueue = `large-${process.pid}-${Date.now().toString(36)}`;
  const common = ['--address', opts.address, '--namespace', opts.namespace, '--store', opts.storeUrl];
  const dirs = [0, 1].map(() => mkdtempSync(path.join(os.tmpdir(), 'spica-large-local-')));
  const workers = dirs.map((dir) =>
    spawnSpica(['worker', ...common, '--task-queue', taskQueue, '--concurrency', '1', '--cache-dir', dir], { SPICA_RESULT_STORE: dir }),
  );
  try {
    for (const w of workers) await until('a worker to poll', () => w.output().stderr.includes('worker polling task queue'), 60_000);
    const sweepId = `large-${taskQueue}`;
    const started = performance.now();
    const first = await opts.client.workflow.start<typeof sweep>('sweep', { workflowId: sweepId, taskQueue, args: [config] });
    let wanted = 0;
    let done = 0;
    await until(
      'the first run to finish part of its trials',
      async () => {
        const p = await liveSweepProgress(opts.client, first).catch(() => null);
        if (!p || p.branches.length === 0) return false;
        wanted = p.branches.reduce((n, b) => n + b.trials_wanted, 0);
        done = p.branches.reduce((n, b) => n + b.trials_done, 0);
        return done >= wanted * (opts.terminateAt ?? 0.3);
      },
      600_000,
    );
    await first.terminate('large-sweep scenario: resume must finish it');
    const firstRunSeconds = (performance.now() - started) / 1000;
    log(`first run terminated after ${done}/${wanted} trials (${firstRunSeconds.toFixed(1)} s)`);

    const resumeStarted = performance.now();
    const resume = spawnSpica(['resume', sweepId, '--detach', ...common]);
    if ((await resume.exited) !== 0) throw new Error(`spica resume failed: ${resume.output().stderr}`);
    const resumedId = resume.output().stdout.trim();
    await opts.client.workflow.getHandle(resumedId).result();
    const resumeSeconds = (performance.now() - resumeStarted) / 1000;
    log(`resumed run ${resumedId} completed (${resumeSeconds.toFixed(1)} s)`);

    // A third process, with no local copy of anything, reads the stored result.
    const reader = spawnSpica(['result', resumedId, '--json', ...common], { SPICA_CACHE_DIR: mkdtempSync(path.join(os.tmpdir(), 'spica-reader-')) });
    const code = await reader.exited;
    if (code !== 0 && code !== 1) throw new Error(`spica result exited ${code}: ${reader.output().stderr}`);
    const text = reader.output().stdout;
    const result = JSON.parse(text) as SweepResult;

    const ids = [sweepId, resumedId].flatMap((id) => [id, branchWorkflowId(id, 'agg'), branchWorkflowId(id, 'disagg')]);
    const payloads = await historyPayloads(opts.client, ids);
    const localFiles = dirs.reduce((n, d) => n + readdirSync(d, { recursive: true }).length, 0);
    const cpu = workers.map((w) => processCpuSeconds(w.child.pid));
    return {
      trialsWanted: wanted,
      trialsAtTermination: done,
      result,
      resultBytes: Buffer.byteLength(text),
      firstRunSeconds,
      resumeSeconds,
      payloads,
      localFiles,
      workerCpuSeconds: cpu.every((c) => c !== null) ? cpu.reduce((a, b) => a! + b!, 0) : null,
      sweepIds: [sweepId, resumedId],
    };
  } finally {
    for (const w of workers) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => Promise.race([w.exited, new Promise((r) => setTimeout(r, 15_000))])));
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
  }
}
