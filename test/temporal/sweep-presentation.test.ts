// Pure pieces around the durable sweep: compact trials carried across continue-as-new, the progress
// computation behind the `progress` query, and the CLI's progress line and result table.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { formatDuration, ProgressReporter, progressLine } from '../../src/cli/temporal/sweep-progress.js';
import { formatSweepStatus } from '../../src/cli/sweeps/sweep-status.js';
import { formatSweepResult } from '../../src/cli/temporal/sweep-summary.js';
import { scoreReport, strictSlaViolation, type GoalSpec } from '../../src/search/goal.js';
import type { StudyState } from '../../src/search/study/branchStudy.js';
import type { BranchStudyPlan } from '../../src/search/study/plan.js';
import type { TrialRecord } from '../../src/search/study/trialRecord.js';
import { runLocalSweep } from '../../activities/local-sweep.js';
import { branchProgress } from '../../workflows/branch-progress.js';
import { compactTrial, scoringMetricKeys } from '../../workflows/compact-trial.js';
import { SMALL_CONFIG_YAML, TINY_CONFIG_YAML } from './harness.js';

const METRICS = {
  output_throughput_tok_s: 500,
  avg_gpu: 2,
  mean_output_token_throughput_per_user: 40,
  goodput_output_throughput_tok_s: 450,
  mean_ttft_ms: 120,
  mean_tpot_ms: 9,
  mean_e2e_latency_ms: 700,
  p99_ttft_ms: 300,
  duration_ms: 1000,
};

describe('compact trials', () => {
  const goals: GoalSpec[] = [
    { target: 'throughput' },
    { target: 'throughput_per_gpu', strict_sla: true, sla: { ttft_ms: 100, itl_ms: 10 } },
    { target: 'pareto', pareto_objectives: ['goodput_per_gpu', 'e2e_latency'] },
  ];
  it.each(goals)('keep exactly what scoring needs under %o', (goal) => {
    const keys = scoringMetricKeys(goal);
    const small = Object.fromEntries(keys.map((k) => [k, METRICS[k as keyof typeof METRICS]]));
    expect(scoreReport(goal, small)).toEqual(scoreReport(goal, METRICS));
    expect(strictSlaViolation(goal, small)).toEqual(strictSlaViolation(goal, METRICS));
    expect(keys).not.toContain('p99_ttft_ms');
  });

  it('drop candidate and projection and stay well under 1 KB', async () => {
    const result = await runLocalSweep(parseConfigText(TINY_CONFIG_YAML));
    const row = result.candidates[0];
    const trial: TrialRecord = {
      n: 1, round: 1, point: row.point, key: 'f'.repeat(64), candidate: row.config, used_gpus: row.used_gpus,
      concurrency: row.concurrency, status: row.status, reason_category: row.reason_category as TrialRecord['reason_category'], reason: row.reason,
      objectives: row.objectives, metrics: row.metrics, projection: row.spica_projection, cache_hit: false,
    };
    const compact = compactTrial(trial, scoringMetricKeys({ target: 'throughput' }));
    expect(compact).toMatchObject({ candidate: null, projection: null, metrics: { output_throughput_tok_s: row.metrics!.output_throughput_tok_s } });
    expect(JSON.stringify(trial).length).toBeGreaterThan(2000);
    expect(JSON.stringify(compact).length).toBeLessThan(1000);
  });
});

describe('progress', () => {
  const plan = {
    deployment_mode: 'agg',
    goal: { target: 'pareto', pareto_objectives: ['throughput_per_gpu', 'throughput_per_user'] },
    settings: { max_rounds: 3, candidates_per_round: 2, parallel_evals: 2, policy: 'rapid' },
    thorough_size: null,
  } as unknown as BranchStudyPlan;
  const trial = (n: number, status: TrialRecord['status'], objectives: Record<string, number> | null, cache_hit = false) =>
    ({ n, round: 1, status, objectives, cache_hit }) as TrialRecord;
  const state: StudyState = {
    round: 1,
    thorough_next: 0,
    optimizer: null,
    stop_reason: null,
    trials: [
      trial(1, 'feasible', { throughput_per_gpu: 100, throughput_per_user: 10 }),
      trial(2, 'feasible', { throughput_per_gpu: 50, throughput_per_user: 20 }),
      trial(3, 'feasible', { throughput_per_gpu: 40, throughput_per_user: 5 }),
      trial(4, 'timed_out', null),
      trial(5, 'feasible', { throughput_per_gpu: 100, throughput_per_user: 10 }, true), // a repeat of 1: not progress
    ],
  };

  it('counts unique trials, best, Pareto front size, and the ETA from the replay time per unique feasible trial', () => {
    const p = branchProgress(plan, state, { waves: 2, wave_ms_total: 3000 }, { workflowId: 'w/branch-agg', status: 'running', continued_as_new: 1 });
    expect(p).toMatchObject({
      trials_done: 4, trials_wanted: 6, trials_recorded: 5, feasible: 3, timed_out: 1, pareto_front_size: 2,
      // 3 of 6 wanted unique feasible trials in 3 s of replays: 3 s to go.
      best: { objective: 'throughput_per_gpu', value: 100, trial: 1 }, avg_wave_seconds: 1.5, eta_seconds: 3, continued_as_new: 1,
    });
    expect(branchProgress(plan, state, { waves: 0, wave_ms_total: 0 }, { workflowId: 'x', status: 'running', continued_as_new: 0 }).eta_seconds).toBeNull();
  });

  it('renders a plain line on change only, and a redrawn bar on a TTY', () => {
    const p = branchProgress(plan, state, { waves: 2, wave_ms_total: 3000 }, { workflowId: 'x', status: 'running', continued_as_new: 0 });
    const sweep = { phase: 'studying' as const, stop_requested: false, branches: [p] };
    expect(progressLine(sweep)).toBe('studying · trials 4/6 · best agg throughput_per_gpu 100.0 (front 2) · ETA 3s');
    const plain: string[] = [];
    const r = new ProgressReporter((s) => plain.push(s), false);
    r.update(sweep);
    r.update(sweep);
    expect(plain).toEqual([`progress: ${progressLine(sweep)}\n`]);
    const tty: string[] = [];
    const bar = new ProgressReporter((s) => tty.push(s), true);
    bar.update(sweep);
    bar.finish();
    expect(tty[0]).toMatch(/^\r\x1b\[2K\[#{16}\.{8}\] studying/);
    expect(tty[1]).toBe('\n');
  });
  it('the status view counts trials as the progress line does, past the feasible trials wanted too', () => {
    // Under rapid, `trials_wanted` counts feasible trials: infeasible ones carry the count past it.
    const p = { ...branchProgress(plan, state, { waves: 2, wave_ms_total: 3000 }, { workflowId: 'x', status: 'running', continued_as_new: 0 }), trials_done: 8 };
    const sweep = { phase: 'studying' as const, stop_requested: false, branches: [p] };
    expect(progressLine(sweep)).toContain('trials 8/8');
    const status = formatSweepStatus({
      workflowId: 'w', runId: 'r', status: 'RUNNING', startTime: '2026-01-01T00:00:00.000Z', closeTime: null, taskQueue: 'q',
      model: 'm', hardware: 'h', goal: 'pareto', historyLength: 40, progress: sweep, progress_note: null,
    });
    expect(status).toContain('trials 8/8 ');
  });

  it('durations round once: 119.6 s is 2m00s, not 1m60s', () => {
    expect([null, 4.4, 59.6, 119.6, 3599.7, 7260].map(formatDuration)).toEqual(['?', '4s', '1m00s', '2m00s', '1h00m', '2h01m']);
  });
});

describe('result table', () => {
  it('lists the ranked top-N with key metrics, counts by status and branches', async () => {
    const result = await runLocalSweep(parseConfigText(SMALL_CONFIG_YAML));
    const text = formatSweepResult(result);
    expect(text).toMatch(/^top \d+ by throughput:$/m);
    expect(text).toMatch(/^ {2}#\s+id\s+branch\s+backend\s+parallel\s+gpus\s+throughput\s+ttft_ms\s+tpot_ms$/m);
    expect(text).toMatch(/^ {2}1\s+candidate-\d{6}\s+(agg|disagg)\s+vllm\s+/m);
    expect(text).toContain(`trials: ${result.counts.evaluated} — ${result.counts.feasible} feasible`);
    expect(text).toMatch(/^ {2}disagg \(vllm\): 1 round\(s\), 2 trial\(s\), stopped: max_rounds$/m);
  });
});
