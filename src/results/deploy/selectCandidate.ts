// Which candidate `spica deploy` deploys: the one named, or — for single-objective results only —
// the top-ranked one. A Pareto front has no implicit winner.
import { InputError, SpicaError } from '../../errors.js';
import type { CandidateRow, SweepResult } from '../../search/sweepResult.js';

function listIds(ids: readonly string[], max = 20): string {
  if (ids.length === 0) return '(none)';
  return ids.length <= max ? ids.join(', ') : `${ids.slice(0, max).join(', ')} … (${ids.length - max} more)`;
}

export function selectCandidate(result: SweepResult, id?: string): CandidateRow {
  const views = result.views;
  const choices = 'pareto_front' in views ? views.pareto_front : views.top_n;
  const kind = 'pareto_front' in views ? 'Pareto front' : 'ranked candidates';
  if (id === undefined) {
    if ('pareto_front' in views)
      throw new InputError(`a Pareto result has no implicit winner: pass --candidate ID with one of the front's ids: ${listIds(views.pareto_front)}`);
    const best = views.top_n[0];
    if (best === undefined) throw new SpicaError('nothing feasible in this result: there is no candidate to deploy', 1);
    id = best;
  }
  const row = result.candidates.find((c) => c.id === id);
  if (!row) throw new InputError(`unknown candidate '${id}'; valid ids (${kind}): ${listIds(choices)}`);
  if (row.status !== 'feasible')
    throw new InputError(`${row.id} is ${row.status}${row.reason ? ` (${row.reason_category ?? ''}: ${row.reason})` : ''} and cannot be deployed; deployable ids (${kind}): ${listIds(choices)}`);
  return row;
}
