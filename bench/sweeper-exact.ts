// A bench problem's exact answer: `thorough` over every candidate, through the replay memo (the first
// run replays them all, later runs read the memo).
import { runSweepLocal } from '../src/search/runSweepLocal.js';
import type { SweepResult } from '../src/search/sweepResult.js';
import { problemConfig, ReplayMemo } from './sweeper-memo.js';
import type { BenchProblem } from './sweeper-problems.js';

export interface ExactAnswer {
  memo: ReplayMemo;
  result: SweepResult;
  /** Replays this call ran (0 when the memo was complete) and their CPU time. */
  replays: number;
  cpuMs: number;
}

export async function enumerateProblem(problem: BenchProblem): Promise<ExactAnswer> {
  const memo = new ReplayMemo(problem);
  const config = problemConfig(problem, '{policy: thorough, parallel_evals: 16}');
  const result = await runSweepLocal(config, { evaluator: memo.evaluator(config), traceRequests: memo.trace.traceRequests });
  memo.save();
  return { memo, result, replays: memo.replays, cpuMs: memo.replayCpuMs };
}
