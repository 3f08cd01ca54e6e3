// The seed's "pin a single deployment": a config with no searched dimension sweeps as one trial
// (the study never asks the optimizer), and one with a single free dimension sweeps until that
// dimension is exhausted; both rank and deploy as usual.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runLocalSweep } from '../../activities/local-sweep.js';
import { configFromObject } from '../../src/config/load.js';
import { writeDeploymentFiles } from '../../src/results/deploy/writeDeployment.js';

const root = mkdtempSync(join(tmpdir(), 'spica-pinned-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const base = {
  model_name: 'meta-llama/Llama-3.1-8B-Instruct',
  hardware_sku: 'h100_sxm',
  gpu_budget: 8,
  deployment_mode: ['agg'],
  backend: ['vllm'],
  parallel_configs: [{ tp: 2, replicas: 2 }],
  agg_max_num_batched_tokens: [8192],
  agg_max_num_seqs: [256],
  router_mode: ['round_robin'],
  planner_scaling_policy: ['disabled'],
};
const rest = { workload: { isl: 512, osl: 64, concurrency: 8, num_request_ratio: 2 }, goal: { target: 'throughput' }, sweep: { max_rounds: 4, candidates_per_round: 4 } };

describe('pinned configs', () => {
  it('a fully pinned config sweeps as one trial, ranked and deployable', async () => {
    const result = await runLocalSweep(configFromObject({ search_space: base, ...rest }));
    expect(result.counts).toMatchObject({ evaluated: 1, feasible: 1 });
    expect(result.branches[0]).toMatchObject({ trials: 1, stop_reason: 'exhausted' });
    expect(result.views).toEqual({ top_n: ['candidate-000001'] });
    const { files } = writeDeploymentFiles(result, result.candidates[0], join(root, 'one'));
    expect(files.length).toBeGreaterThan(2);
  });

  it('one free dimension sweeps as far as it goes', async () => {
    const result = await runLocalSweep(configFromObject({ search_space: { ...base, agg_max_num_seqs: [256, 512] }, ...rest }));
    expect(result.counts.evaluated).toBe(2);
    expect(new Set(result.candidates.map((c) => c.config.engine.agg_max_num_seqs))).toEqual(new Set([256, 512]));
    expect(result.branches[0].stop_reason).toBe('exhausted');
  });
});
