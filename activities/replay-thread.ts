// One replay runner per worker thread, reused for many candidates: receives a task, runs the same
// `evaluateCandidate` as `spica sweep --local`, posts the outcome back. The pool terminates this
// thread when a replay exceeds max_eval_seconds; resourceLimits bound its heap.
import { parentPort } from 'node:worker_threads';
import type { MaterializedCandidate } from '../src/search/study/materialize.js';
import { evaluateCandidate, type EvaluationContext } from './evaluate.js';

export interface ThreadTask {
  id: number;
  ctx: Omit<EvaluationContext, 'resolve'> & { systemsDir?: string; coefficientsDir?: string };
  candidate: MaterializedCandidate;
  /** Test hook (SPICA_TEST_HOOKS=1 + SPICA_TEST_HANG_MATCH): spin forever instead of replaying. */
  hang?: boolean;
  /** Test hook: allocate without bound (exercises the memory limit). */
  exhaustMemory?: boolean;
}

if (!parentPort) throw new Error('replay-thread must run in a worker thread');
const port = parentPort;

port.on('message', (task: ThreadTask) => {
  if (task.hang) for (;;);
  if (task.exhaustMemory) {
    const hoard: number[][] = [];
    for (;;) hoard.push(new Array(1 << 20).fill(hoard.length));
  }
  const { systemsDir, coefficientsDir, ...ctx } = task.ctx;
  const outcome = evaluateCandidate({ ...ctx, resolve: { systemsDir, coefficientsDir } }, task.candidate);
  port.postMessage({ id: task.id, outcome });
});

// Booting (tsx + the simulator's modules) takes a while; the pool starts a replay's clock only now.
port.postMessage({ ready: true });
