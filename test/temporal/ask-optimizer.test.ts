// The `askOptimizer` local activity must be a drop-in for the in-process ask: the branch loop routed
// through it (as branch-study.ts does: the loop's optimizer adopts the asked state, carried across
// rounds instead of rebuilt from its trials) records exactly the same trials and state.
import { describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { askOptimizer, askOptimizerPure } from '../../activities/ask-optimizer.js';
import { analyticPrior } from '../../activities/analytic-prior.js';
import { parseConfigText } from '../../src/config/load.js';
import { planSweep } from '../../src/search/sweepPlan.js';
import { recallTrials, storeTrialChunk } from '../../activities/trial-chunks.js';
import { carryToldTrials, compactTrial, scoringMetricKeys } from '../../workflows/compact-trial.js';
import type { ProjectionRecord } from '../../src/search/sweepResult.js';
import type { StudyState } from '../../src/search/study/branchStudy.js';
import { createOptimizer, restoreOptimizer } from '../../src/search/optimizer/optimizer.js';
import type { Point } from '../../src/search/optimizer/space.js';
import { runBranchStudy, type StudyPorts } from '../../src/search/study/branchStudy.js';
import type { MaterializedCandidate } from '../../src/search/study/materialize.js';
import type { BranchStudyPlan } from '../../src/search/study/plan.js';
import type { EvalOutcome } from '../../src/search/trial.js';
import { qwenDisaggYaml } from '../support/qwen-disagg.js';

const plan: BranchStudyPlan = {
  deployment_mode: 'agg',
  backends: ['vllm'],
  dimensions: [
    { name: 'x', kind: 'discrete', values: [1, 2, 4, 8, 16, 32, 64, 128], log_scale: true },
    { name: 'mode', kind: 'categorical', values: ['a', 'b', 'c'] },
    { name: 'r', kind: 'continuous', values: [0, 1] },
  ],
  initial_point: { x: 8, mode: 'a', r: 1 },
  thorough_size: null,
  objectives: [{ name: 'throughput', direction: 'max' }],
  goal: { target: 'throughput' },
  settings: { max_rounds: 4, candidates_per_round: 4, parallel_evals: 2, policy: 'rapid', algorithm: 'bayesian', seed: 11 },
};

function basePorts(): StudyPorts {
  return {
    materialize: async (points: Point[]) =>
      points.map((pt): MaterializedCandidate => ({
        key: JSON.stringify({ x: pt.x, mode: pt.mode, r: Math.round(Number(pt.r) * 4) / 4 }),
        candidate: {
          deployment_mode: 'agg',
          backend: 'vllm',
          engine: {},
          parallel_config: { tp: 1, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 1, replicas: 1 },
          adapters: {},
        },
        used_gpus: 1,
        concurrency: null,
        projection: null,
        rejection: pt.mode === 'c' && Number(pt.x) > 32 ? { reason_category: 'kv_capacity', reason: 'no KV budget' } : null,
      })),
    evaluate: async (cands) =>
      cands.map((c): EvalOutcome => {
        const k = JSON.parse(c.key) as { x: number; mode: string; r: number };
        const score = 100 - (Math.log2(k.x) - 4) ** 2 * 5 + (k.mode === 'b' ? 10 : 0) + k.r * 3;
        return { ok: true, metrics: { output_throughput_tok_s: score, avg_gpu: 1 } };
      }),
  };
}

describe('askOptimizer local activity', () => {
  it('drives the branch loop to exactly the in-process result', async () => {
    const local = await runBranchStudy(plan, basePorts());
    let calls = 0;
    const viaActivity = await runBranchStudy(plan, {
      ...basePorts(),
      ask: async (state, n) => {
        calls += 1;
        // Through JSON, like a Temporal payload; the loop adopts the trial-less state.
        const asked = JSON.parse(JSON.stringify(await askOptimizer(JSON.parse(JSON.stringify({ state, n })))));
        expect(asked.state).not.toHaveProperty('trials');
        return asked;
      },
    });
    expect(calls).toBeGreaterThan(plan.settings.max_rounds);
    // Past the initial design: the GP path (the expensive one) was exercised too.
    expect(local.state.trials.length).toBeGreaterThan(12);
    expect(JSON.stringify(viaActivity.state)).toBe(JSON.stringify(local.state));
  });

  it('asks the same with the told trials left to the stored chunks across continue-as-new (as branch-study.ts)', async () => {
    process.env.SPICA_RESULT_STORE = mkdtempSync(path.join(os.tmpdir(), 'spica-told-'));
    // Projections that move the point (r snapped to quarters), so the told `observed` points matter.
    const projected = (): StudyPorts => {
      const ports = basePorts();
      return {
        ...ports,
        materialize: async (points) =>
          (await ports.materialize(points)).map((m, i) => {
            const r = Math.round(Number(points[i].r) * 4) / 4;
            return r === points[i].r ? m : { ...m, projection: { requested: { r: Number(points[i].r) }, actual: { r }, distance: 0, mode_projected: false, parallel_config: m.candidate!.parallel_config } as ProjectionRecord };
          }),
      };
    };
    const longPlan: BranchStudyPlan = { ...plan, settings: { ...plan.settings, max_rounds: 7 } };
    const local = await runBranchStudy(longPlan, projected());

    const prefix = `told-${Date.now()}`;
    const keys = scoringMetricKeys(longPlan.goal);
    let chunks = 0;
    let toldLeftOut = 0;
    let maxToldSent = 0;
    const all: StudyState['trials'] = [];
    const ports: StudyPorts = {
      ...projected(),
      store: async (trials) => {
        all.push(...trials);
        await storeTrialChunk({ prefix, index: chunks, trials: trials.map((t) => compactTrial(t, keys)) });
        chunks += 1;
      },
      recall: (k) => recallTrials({ prefix, chunks, keys: k }),
      ask: async (state, n) => {
        maxToldSent = Math.max(maxToldSent, state.trials.length);
        const input = toldLeftOut > 0 ? { state, n, told: { prefix, chunks, count: toldLeftOut } } : { state, n };
        return JSON.parse(JSON.stringify(await askOptimizer(JSON.parse(JSON.stringify(input)))));
      },
    };
    // Continue-as-new after every round, carrying the state without the stored told trials.
    let state: StudyState | undefined;
    let runs = 0;
    for (;;) {
      const r = await runBranchStudy(longPlan, ports, { afterRound: () => 'pause' }, state);
      runs += 1;
      const next = carryToldTrials(JSON.parse(JSON.stringify(r.state)) as StudyState, toldLeftOut);
      if (r.finished) break;
      expect(next.state.optimizer!.trials).toEqual([]);
      expect(next.told_in_store).toBe(r.state.stored_trials);
      toldLeftOut = next.told_in_store;
      state = next.state;
    }
    expect(runs).toBe(longPlan.settings.max_rounds);
    expect(local.state.trials.some((t) => t.projection)).toBe(true);
    // Same trials, asks and optimizer bookkeeping; no ask carried more than one round's told trials.
    // (A repeat answered from a stored trial carries only its scoring metrics: the report re-hydrates them.)
    const told = (t: StudyState['trials'][number]) => [t.n, t.round, t.point, t.key, t.status, t.objectives, t.cache_hit, t.projection?.actual ?? null];
    expect(all.map(told)).toEqual(local.state.trials.map(told));
    expect(maxToldSent).toBeLessThanOrEqual(11 * longPlan.settings.candidates_per_round);
    expect(maxToldSent).toBeLessThan(local.state.trials.length / 2);
  });

  it('returns what the optimizer itself would ask, and its post-ask state', async () => {
    const opt = createOptimizer({ space: plan.dimensions, algorithm: 'bayesian', objectives: plan.objectives, seed: 3 });
    const before = opt.state();
    const asked = await askOptimizer({ state: before, n: 3 });
    expect(asked.points).toEqual(opt.ask(3));
    const { trials, ...after } = opt.state();
    expect(trials).toEqual(before.trials);
    expect(asked.state).toEqual(after);
  });

  it('fails without retries on a corrupt state', async () => {
    const bad = { v: 2 } as unknown as Parameters<typeof askOptimizer>[0]['state'];
    const err = await askOptimizer({ state: bad, n: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).nonRetryable).toBe(true);
    expect((err as ApplicationFailure).message).toMatch(/optimizer state/);
  });
});

describe('askOptimizer with the analytic prior', () => {
  const yaml = qwenDisaggYaml(3);

  it('asks exactly what the in-process loop asks with the branch prior, and the prior is used', async () => {
    const config = parseConfigText(yaml, { sourceName: 'prior' });
    const branch = planSweep(config).branches[0];
    expect(branch.plan.analytic_prior).toBe(true);
    expect(branch.plan.shape_dimensions).toContain('backend');
    const m = branch.materializer;
    const runtime = { project: (p: Point) => m.projectPoint(p), lowCorners: (p: Point) => m.lowCorners(p) };
    const prior = analyticPrior(config, m)!;
    const opt = createOptimizer(
      { space: branch.plan.dimensions, algorithm: 'bayesian', objectives: branch.plan.objectives, seed: 3, priorMean: true, shapeDimensions: branch.plan.shape_dimensions },
      { ...runtime, prior },
    );
    // Told values that follow the prior loosely (so its mean gets weight and visibly moves the asks).
    const asked = opt.ask(12);
    const est = prior(asked);
    opt.tell(asked.map((p, i) => ({ point: p, values: { throughput_per_gpu: (est[i]?.[0] ?? 100) * (0.7 + 0.1 * (i % 4)) }, feasible: true })));
    const state = opt.state();
    const viaActivity = askOptimizerPure({ state, n: 8, context: { config, mode: 'disagg', traceSha256: null } });
    const inProcess = restoreOptimizer(state, { ...runtime, prior });
    expect(viaActivity.points).toEqual(inProcess.ask(8));
    const { prior_mean: _p, ...withoutPrior } = state;
    expect(askOptimizerPure({ state: withoutPrior, n: 8, context: { config, mode: 'disagg', traceSha256: null } }).points).not.toEqual(viaActivity.points);
  });
});
