// The listed candidates as the CLI table and the report show them: identical replays fold into one
// line ("+N equivalent", with what each differs in), each line names the settings that tell it
// apart; Pareto results carry the front's hypervolume and its reference point.
import { describe, expect, it } from 'vitest';
import { runLocalSweep } from '../../activities/local-sweep.js';
import { formatSweepResult } from '../../src/cli/temporal/sweep-summary.js';
import { configFromObject } from '../../src/config/load.js';
import { equivalentLabel, listedGroups, settingsOf } from '../../src/results/rankedView.js';
import { renderReport } from '../../src/results/report/render.js';
import { referencePoint } from '../../src/search/assembleResult.js';
import { hypervolume, paretoFrontIndices } from '../../src/search/pareto.js';
import { makeSweepResult } from './fixture.js';

describe('ranked table', () => {
  it('folds candidates whose replays are identical (a knob that does not bind) into one line', async () => {
    // At concurrency 8, max_num_seqs 256 and 512 replay identically.
    const config = configFromObject({
      search_space: { model_name: 'meta-llama/Llama-3.1-8B-Instruct', hardware_sku: 'h100_sxm', gpu_budget: 8, deployment_mode: ['agg'], backend: ['vllm'], parallel_configs: [{ tp: 2, replicas: 2 }], agg_max_num_batched_tokens: [8192], agg_max_num_seqs: [256, 512], router_mode: ['round_robin'], planner_scaling_policy: ['disabled'] },
      workload: { isl: 512, osl: 64, concurrency: 8, num_request_ratio: 2 },
      goal: { target: 'throughput' },
    });
    const result = await runLocalSweep(config);
    const ids = (result.views as { top_n: string[] }).top_n;
    expect(ids).toHaveLength(2);
    const groups = listedGroups(result, ids);
    expect(groups).toHaveLength(1);
    const other = groups[0].equivalent[0];
    expect(equivalentLabel(groups[0])).toBe(`+1 equivalent: ${other.id} (agg.max_num_seqs=${other.config.engine.agg_max_num_seqs})`);
    const text = formatSweepResult(result);
    expect(text.split('\n').filter((l) => /^\s+\d+\s+candidate-/.test(l))).toHaveLength(1);
    expect(text).toContain(`+1 equivalent: ${other.id}`);
    const html = renderReport(result);
    expect(html).toContain('2 candidates, 1 distinct replays');
    expect(html).toContain(`+1 equivalent: ${other.id}`);
  });

  it('names exactly the settings that differ among the listed lines', () => {
    const r = makeSweepResult('single');
    const ids = (r.views as { top_n: string[] }).top_n;
    const groups = listedGroups(r, ids);
    const settings = groups.map((g) => settingsOf(g.row));
    const shown = new Set(groups.flatMap((g) => g.differing.map(([k]) => k)));
    for (const name of new Set(settings.flatMap((s) => Object.keys(s)))) {
      const values = new Set(settings.filter((s) => name in s).map((s) => s[name]));
      expect(shown.has(name), name).toBe(values.size > 1);
    }
    // The fixture's rows differ in engine, router and planner knobs; its block size never does.
    expect(shown.has('agg.max_num_seqs')).toBe(true);
    expect(shown.has('router')).toBe(true);
    expect(shown.has('planner')).toBe(true);
    expect(shown.has('agg.block_size')).toBe(false);
    groups.forEach((g, i) => expect(g.differing).toEqual(g.differing.map(([k]) => [k, settings[i][k]])));
    const text = formatSweepResult(r);
    expect(text).toMatch(/^\s{7}.*agg\.max_num_seqs=\d+/m);
  });
});

describe('Pareto hypervolume', () => {
  it('the result carries the front hypervolume from its reference point; CLI and report show it', async () => {
    const config = configFromObject({
      search_space: { model_name: 'meta-llama/Llama-3.1-8B-Instruct', hardware_sku: 'h100_sxm', gpu_budget: 4, deployment_mode: ['agg'], backend: ['vllm'], agg_max_num_batched_tokens: [8192], agg_max_num_seqs: [256], router_mode: ['round_robin'], planner_scaling_policy: ['disabled'] },
      workload: { isl: 512, osl: 64, kv_load_ratio: [0.1, 0.9], num_request_ratio: 1 },
      goal: { target: 'pareto', pareto_objectives: ['throughput_per_gpu', 'e2e_latency'] },
      sweep: { max_rounds: 2, candidates_per_round: 3 },
    });
    const result = await runLocalSweep(config);
    const hv = result.hypervolume!;
    expect(hv).not.toBeNull();
    const names = result.objectives.map((o) => o.name);
    const dirs = result.objectives.map((o) => o.direction);
    const seen = new Set<string>();
    const feasible = result.candidates.filter((c) => c.status === 'feasible' && !seen.has(JSON.stringify(c.config)) && seen.add(JSON.stringify(c.config)));
    const points = feasible.map((c) => names.map((n) => c.objectives![n]));
    const ref = referencePoint(points, dirs);
    // Maximized: the origin; minimized (latency): 10 % beyond the worst feasible value.
    expect(ref[0]).toBe(0);
    expect(ref[1]).toBeCloseTo(1.1 * Math.max(...points.map((p) => p[1])), 6);
    expect(hv.reference_point).toEqual({ [names[0]]: ref[0], [names[1]]: ref[1] });
    expect(hv.value).toBeGreaterThan(0);
    expect(hv.value).toBeCloseTo(hypervolume(paretoFrontIndices(points, dirs).map((i) => points[i]), ref, dirs), 6);
    expect(formatSweepResult(result)).toMatch(/^hypervolume [\d.e+]+ \(reference point throughput_per_gpu 0\.0, e2e_latency [\d.]+\)$/m);
    expect(renderReport(result)).toMatch(/id="hypervolume">Hypervolume of the front: <strong>[\d,.]+<\/strong>/);
    // Single-objective results carry none.
    expect(makeSweepResult('single').hypervolume).toBeNull();
  });
});
