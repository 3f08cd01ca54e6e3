// A candidate that cannot be replayed as configured (no KV budget, a request larger than every
// worker): reported as infeasible to the optimizer, never as a score.
import { SpicaError } from '../errors.js';

export class ReplayInfeasible extends SpicaError {
  constructor(
    readonly reasonCategory: 'kv_capacity' | 'replay_runtime',
    detail: string,
  ) {
    super(`infeasible (${reasonCategory}): ${detail}`, 1);
  }
}
