// The round loop's rules (dynamo-facts §4, seed "Parallel search projection") on a synthetic branch:
// ports are injected, so every rule is checked without the simulator.
import { describe, expect, it } from 'vitest';
import { runBranchStudy, initialStudyState, type StudyPorts, type StudyState } from '../../src/search/study/branchStudy.js';
import type { MaterializedCandidate } from '../../src/search/study/materialize.js';
import { THOROUGH_INDEX, type BranchStudyPlan } from '../../src/search/study/plan.js';
import type { Point } from '../../src/search/optimizer/space.js';
import type { EvalOutcome } from '../../src/search/trial.js';
import type { TrialRecord } from '../../src/search/study/trialRecord.js';

function plan(over: Partial<BranchStudyPlan['settings']> = {}, dims?: BranchStudyPlan['dimensions']): BranchStudyPlan {
  const dimensions = dims ?? [
    { name: 'x', kind: 'discrete', values: [1, 2, 4, 8, 16, 32, 64, 128], log_scale: true },
    { name: 'mode', kind: 'categorical', values: ['a', 'b', 'c'] },
    { name: 'r', kind: 'continuous', values: [0, 1] },
  ];
  return {
    deployment_mode: 'agg',
    backends: ['vllm'],
    dimensions,
    initial_point: { x: 8, mode: 'a', r: 1 },
    thorough_size: null,
    objectives: [{ name: 'throughput', direction: 'max' }],
    goal: { target: 'throughput' },
    settings: { max_rounds: 3, candidates_per_round: 4, parallel_evals: 2, policy: 'rapid', algorithm: 'bayesian', seed: 7, ...over },
  };
}

/** Candidates collapse many points (like projection does): key = (x, mode, r rounded to a coarse grid). */
function ports(opts: { grid?: number; infeasibleMode?: string; failX?: number; timeoutX?: number } = {}) {
  const grid = opts.grid ?? 4;
  const evaluated: string[] = [];
  const waves: number[] = [];
  const p: StudyPorts = {
    materialize: async (points: Point[]) =>
      points.map((pt): MaterializedCandidate => {
        const x = Number(pt.x ?? pt[THOROUGH_INDEX] ?? 1);
        const key = JSON.stringify({ x, mode: pt.mode ?? 'a', r: Math.round(Number(pt.r ?? 0) * grid) / grid });
        return {
          key,
          candidate: { deployment_mode: 'agg', backend: 'vllm', engine: {}, parallel_config: { tp: 1, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 1, replicas: 1 }, adapters: {} },
          used_gpus: 1,
          concurrency: null,
          projection: null,
          rejection: pt.mode === opts.infeasibleMode ? { reason_category: 'kv_capacity', reason: 'no KV budget' } : null,
        };
      }),
    evaluate: async (cands) => {
      waves.push(cands.length);
      return cands.map((c): EvalOutcome => {
        evaluated.push(c.key);
        const k = JSON.parse(c.key) as { x: number; mode: string; r: number };
        if (k.x === opts.failX) return { ok: false, reason_category: 'replay_runtime', reason: 'boom' };
        if (k.x === opts.timeoutX) return { ok: false, reason_category: 'runtime_timeout', reason: 'exceed runtime: replay > 1s' };
        const score = 100 - (Math.log2(k.x) - 4) ** 2 * 5 + (k.mode === 'b' ? 10 : 0) + k.r * 3;
        return { ok: true, metrics: { output_throughput_tok_s: score, avg_gpu: 1 } };
      });
    },
  };
  return { ports: p, evaluated, waves };
}

describe('branch study round loop', () => {
  it('never answers a repeat from a timed-out trial: the run-local memo replays it again', async () => {
    // grid 1 and few x values: the optimizer proposes the same candidates again and again.
    const { ports: p, evaluated } = ports({ grid: 1, timeoutX: 8 });
    const { state } = await runBranchStudy(plan({ max_rounds: 4 }), p);
    const timedOut = state.trials.filter((t) => t.status === 'timed_out');
    expect(timedOut.length).toBeGreaterThan(1);
    // Every timed-out trial was a replay of its own, none a memo answer.
    expect(timedOut.every((t) => !t.cache_hit)).toBe(true);
    const timedOutKey = timedOut[0].key;
    expect(evaluated.filter((k) => k === timedOutKey).length).toBe(state.trials.filter((t) => t.key === timedOutKey).length);
    // Other repeats are still memo answers.
    expect(state.trials.some((t) => t.cache_hit && t.status === 'feasible')).toBe(true);
  });

  it('is deterministic: same plan and seed give identical trials', async () => {
    const a = await runBranchStudy(plan(), ports().ports);
    const b = await runBranchStudy(plan(), ports().ports);
    expect(JSON.stringify(a.state.trials)).toBe(JSON.stringify(b.state.trials));
    const c = await runBranchStudy(plan({ seed: 8 }), ports().ports);
    expect(JSON.stringify(c.state.trials)).not.toBe(JSON.stringify(a.state.trials));
  });

  it('starts from the initial point and reaches candidates_per_round unique successes per round', async () => {
    const { state } = await runBranchStudy(plan(), ports().ports);
    expect(state.trials[0].point).toEqual({ x: 8, mode: 'a', r: 1 });
    expect(state.stop_reason).toBe('max_rounds');
    for (let r = 1; r <= 3; r++) {
      const firstSuccess = new Set<string>();
      const prior = new Set(state.trials.filter((t) => t.round < r && t.status === 'feasible').map((t) => t.key));
      for (const t of state.trials.filter((t) => t.round === r && t.status === 'feasible')) if (!prior.has(t.key)) firstSuccess.add(t.key);
      expect(firstSuccess.size).toBe(4);
    }
  });

  it('replays each distinct candidate once: repeats come from the run-local cache, in-batch duplicates coalesce', async () => {
    const h = ports({ grid: 1 });
    const { state } = await runBranchStudy(plan({ max_rounds: 4, candidates_per_round: 6 }), h.ports);
    expect(new Set(h.evaluated).size).toBe(h.evaluated.length);
    const hits = state.trials.filter((t) => t.cache_hit);
    expect(hits.length).toBeGreaterThan(0);
    for (const t of hits) {
      const first = state.trials.find((u) => u.key === t.key && !u.cache_hit)!;
      expect(first.n).toBeLessThan(t.n);
      expect(t.metrics).toEqual(first.metrics);
    }
  });

  it('evaluates in waves of at most parallel_evals', async () => {
    const h = ports();
    await runBranchStudy(plan({ parallel_evals: 3, candidates_per_round: 5 }), h.ports);
    expect(Math.max(...h.waves)).toBeLessThanOrEqual(3);
  });

  it('tells rejections and failures as infeasible with a reason, never as a score', async () => {
    const h = ports({ infeasibleMode: 'c', failX: 2 });
    const { state } = await runBranchStudy(plan({ max_rounds: 4 }), h.ports);
    const rejected = state.trials.filter((t) => t.reason_category === 'kv_capacity');
    const failed = state.trials.filter((t) => t.reason_category === 'replay_runtime');
    expect(rejected.length + failed.length).toBeGreaterThan(0);
    for (const t of [...rejected, ...failed]) {
      expect(t.objectives).toBeNull();
      expect(t.status === 'infeasible' || t.status === 'failed').toBe(true);
    }
    // Rejected candidates never reach the evaluator.
    for (const t of rejected) expect(h.evaluated).not.toContain(t.key);
    const told = state.optimizer!.trials;
    expect(told.filter((t) => !t.f).length).toBe(rejected.length + failed.length);
    expect(told.every((t) => (t.f ? t.y !== undefined : t.y === undefined))).toBe(true);
  });

  it('stalls a branch whose round cannot find enough unique successes within 11 × candidates_per_round attempts', async () => {
    // Only 3 distinct candidates exist (x pinned, one mode, r coarse), fewer than one round wants.
    const dims: BranchStudyPlan['dimensions'] = [{ name: 'r', kind: 'continuous', values: [0, 1] }];
    const p = { ...plan({ candidates_per_round: 4, max_rounds: 5 }, dims), initial_point: { r: 1 } };
    const { state } = await runBranchStudy(p, ports({ grid: 2 }).ports);
    expect(state.stop_reason).toBe('projection_stalled');
    expect(state.round).toBe(1);
    expect(state.trials.length).toBe(44);
  });

  it('reports an exhausted finite space instead of asking forever', async () => {
    const dims: BranchStudyPlan['dimensions'] = [{ name: 'mode', kind: 'categorical', values: ['a', 'b'] }];
    const p = { ...plan({ candidates_per_round: 4 }, dims), initial_point: { mode: 'a' } };
    const { state } = await runBranchStudy(p, ports().ports);
    expect(state.stop_reason).toBe('exhausted');
    expect(new Set(state.trials.map((t) => t.key)).size).toBe(2);
  });

  it('thorough evaluates every index of the complete enumeration once, ignoring max_rounds', async () => {
    const p = { ...plan({ policy: 'thorough', max_rounds: 1, parallel_evals: 3 }), thorough_size: 7 };
    const h = ports();
    const { state } = await runBranchStudy(p, h.ports);
    expect(state.stop_reason).toBe('exhausted');
    expect(state.trials.map((t) => t.point[THOROUGH_INDEX])).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('a paused study resumes to exactly the trials of an uninterrupted one', async () => {
    const straight = await runBranchStudy(plan({ max_rounds: 4 }), ports().ports);
    let state: StudyState = initialStudyState();
    let finished = false;
    let pauses = 0;
    while (!finished) {
      // Round-trip through JSON like continue-as-new does.
      const r = await runBranchStudy(plan({ max_rounds: 4 }), ports().ports, { afterRound: () => 'pause' }, JSON.parse(JSON.stringify(state)));
      state = r.state;
      finished = r.finished;
      pauses += r.finished ? 0 : 1;
    }
    expect(pauses).toBe(3);
    expect(JSON.stringify(state.trials)).toBe(JSON.stringify(straight.state.trials));
  });

  it('streaming finished rounds to a store (store/recall ports) gives exactly the in-memory trials, across pauses', async () => {
    // Thorough indices fold onto 7 candidates so that later rounds repeat stored ones.
    const folded = (): StudyPorts => {
      const inner = ports({ grid: 1, infeasibleMode: 'c' }).ports;
      return { ...inner, materialize: (pts) => inner.materialize(pts.map((pt) => (THOROUGH_INDEX in pt ? { [THOROUGH_INDEX]: (Number(pt[THOROUGH_INDEX]) % 7) + 1 } : pt))) };
    };
    for (const p of [plan({ max_rounds: 5, candidates_per_round: 6 }), { ...plan({ policy: 'thorough', parallel_evals: 2 }), thorough_size: 30 }]) {
      const straight = await runBranchStudy(p, folded());
      const stored: TrialRecord[] = [];
      const streaming: StudyPorts = {
        ...folded(),
        store: async (trials) => void stored.push(...JSON.parse(JSON.stringify(trials))),
        recall: async (keys) => keys.flatMap((k) => stored.find((t) => t.key === k && !t.cache_hit) ?? []),
      };
      let state: StudyState = initialStudyState();
      let finished = false;
      while (!finished) {
        const r = await runBranchStudy(p, streaming, { afterRound: () => 'pause' }, JSON.parse(JSON.stringify(state)));
        // Nothing but counters travels between runs.
        expect(r.state.trials).toEqual([]);
        state = r.state;
        finished = r.finished;
      }
      expect(state.stored_trials).toBe(straight.state.trials.length);
      expect([p.settings.policy, straight.state.trials.some((t) => t.cache_hit)]).toEqual([p.settings.policy, true]);
      expect(JSON.stringify(stored)).toBe(JSON.stringify(straight.state.trials));
    }
  });

  it('stops early on request and keeps what is done', async () => {
    let calls = 0;
    const { state } = await runBranchStudy(plan({ max_rounds: 10 }), ports().ports, { shouldStop: () => ++calls > 6 });
    expect(state.stop_reason).toBe('stopped');
    expect(state.trials.length).toBeGreaterThan(0);
  });
});
