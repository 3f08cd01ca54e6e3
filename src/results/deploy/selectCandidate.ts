// Which candidates `spica deploy` deploys: the one named; else the top-ranked one of a
// single-objective result, or every member of a Pareto front (it has no implicit winner, and each
// point is a deployment a user may pick).
import { InputError, SpicaError } from '../../errors.js';
import type { CandidateRow, SweepResult } from '../../search/sweepResult.js';

function listIds(ids: readonly string[], max = 20): string {
  if (ids.length === 0) return '(none)';
  return ids.length <= max ? ids.join(', ') : `${ids.slice(0, max).join(', ')} … (${ids.length - max} more)`;
}

export function selectCandidates(result: SweepResult, id?: string): CandidateRow[] {
  const views = result.views;
  if (id !== undefined) return [selectCandidate(result, id)];
  const ids = 'pareto_front' in views ? views.pareto_front : views.top_n.slice(0, 1);
  if (ids.length === 0) throw new SpicaError('nothing feasible in this result: there is no candidate to deploy', 1);
  return ids.map((i) => selectCandidate(result, i));
}

export function selectCandidate(result: SweepResult, id: string): CandidateRow {
  const views = result.views;
  const choices = 'pareto_front' in views ? views.pareto_front : views.top_n;
  const kind = 'pareto_front' in views ? 'Pareto front' : 'ranked candidates';
  const row = result.candidates.find((c) => c.id === id);
  if (!row) throw new InputError(`unknown candidate '${id}'; valid ids (${kind}): ${listIds(choices)}`);
  if (row.status !== 'feasible')
    throw new InputError(`${row.id} is ${row.status}${row.reason ? ` (${row.reason_category ?? ''}: ${row.reason})` : ''} and cannot be deployed; deployable ids (${kind}): ${listIds(choices)}`);
  return row;
}
