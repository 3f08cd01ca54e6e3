// Load scaling (dynamo-facts §5, planner-design / load_scaling.py): estimate each engine's TTFT / ITL
// at its current load from its pass-time regression, then move the role by one replica when every
// engine agrees. Pure functions; the controller owns the windows, the pending rule and the budget.
import type { EngineRole } from '../engine/engine-config.js';
import { predictPassMs, type PassTimeModel } from './fpm-regression.js';

/**
 * TTFT of a request of `newTokens` prompt tokens joining an engine with `pendingPrefillTokens` ahead
 * of it: the backlog and the prompt go through in passes of at most `tokenBudget` tokens, each pass
 * also carrying `decodeKvTokens` of decode work (0 on a prefill engine).
 */
export function estimateTtftMs(m: PassTimeModel, pendingPrefillTokens: number, newTokens: number, tokenBudget: number, decodeKvTokens = 0): number {
  const total = pendingPrefillTokens + newTokens;
  if (!(total > 0)) return predictPassMs(m, 0, decodeKvTokens);
  if (!Number.isFinite(tokenBudget) || tokenBudget <= 0 || total <= tokenBudget) return predictPassMs(m, total, decodeKvTokens);
  const full = Math.floor(total / tokenBudget);
  const rest = total - full * tokenBudget;
  return full * predictPassMs(m, tokenBudget, decodeKvTokens) + (rest > 0 ? predictPassMs(m, rest, decodeKvTokens) : 0);
}

/** ITL of an engine decoding over `decodeKvTokens` with `prefillTokens` riding in each pass; MTP emits `tokensPerStep` per pass. */
export function estimateItlMs(m: PassTimeModel, decodeKvTokens: number, prefillTokens = 0, tokensPerStep = 1): number {
  return predictPassMs(m, prefillTokens, decodeKvTokens) / tokensPerStep;
}

/** One engine's estimates; NaN where the role does not produce that latency (prefill: no ITL, decode: no TTFT). */
export interface EngineEstimate {
  ttftMs: number;
  itlMs: number;
}

export interface LoadSla {
  ttftMs: number;
  itlMs: number;
  /** Scale down only below SLA × downSensitivity / 100. */
  downSensitivity: number;
}

/**
 * +1, −1 or 0 replicas for a role. Up when every engine's estimate at its current load breaks the SLA;
 * down when every engine would stay under SLA × sensitivity / 100 at the load it would carry with one
 * engine fewer (`afterRemoval`: the same estimates at n/(n−1) of the load). Judging scale-down at the
 * post-removal load keeps a snapshot of a lightly loaded pair from dropping to one overloaded engine.
 */
export function loadScalingStep(role: EngineRole, current: readonly EngineEstimate[], afterRemoval: readonly EngineEstimate[], sla: LoadSla): -1 | 0 | 1 {
  if (current.length === 0) return 0;
  const f = sla.downSensitivity / 100;
  const allTtftOver = current.every((e) => e.ttftMs > sla.ttftMs);
  const allItlOver = current.every((e) => e.itlMs > sla.itlMs);
  const allTtftUnder = afterRemoval.length > 0 && afterRemoval.every((e) => e.ttftMs < sla.ttftMs * f);
  const allItlUnder = afterRemoval.length > 0 && afterRemoval.every((e) => e.itlMs < sla.itlMs * f);
  switch (role) {
    case 'prefill':
      return allTtftOver ? 1 : allTtftUnder ? -1 : 0;
    case 'decode':
      return allItlOver ? 1 : allItlUnder ? -1 : 0;
    case 'agg':
      // Either latency breaking everywhere calls for a replica; giving one back needs both comfortable.
      return allTtftOver || allItlOver ? 1 : allTtftUnder && allItlUnder ? -1 : 0;
  }
}
