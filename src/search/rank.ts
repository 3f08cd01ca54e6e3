// Ranking single-objective results and merging branches (dynamo-facts §3): sort by (−score, used_gpus).
import { OBJECTIVE_DIRECTION, type ObjectiveName } from './goal.js';

export interface Rankable {
  /** Stable identity used as the last tie-break (e.g. candidate-000042). */
  id: string;
  used_gpus: number;
  objectives: Record<string, number>;
}

/** Best first: higher signed score, then fewer GPUs, then id (deterministic). */
export function rankCandidates<T extends Rankable>(items: readonly T[], objective: ObjectiveName): T[] {
  const sign = OBJECTIVE_DIRECTION[objective] === 'min' ? -1 : 1;
  return [...items].sort((a, b) => {
    const sa = sign * a.objectives[objective];
    const sb = sign * b.objectives[objective];
    if (sa !== sb) return sb - sa;
    if (a.used_gpus !== b.used_gpus) return a.used_gpus - b.used_gpus;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}
