// The visibility query `spica list` sends: sweep parents only (children are `branchStudy`), narrowed
// by the search attributes the sweep upserts and by execution status. Pure.
import { InputError } from '../../errors.js';
import { SPICA_GOAL, SPICA_HARDWARE, SPICA_MODEL } from '../../../workflows/search-attributes.js';

/** `--status` spellings → the ExecutionStatus values of Temporal's visibility query language. */
export const LIST_STATUS_VALUES = {
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  canceled: 'Canceled',
  cancelled: 'Canceled',
  terminated: 'Terminated',
  timed_out: 'TimedOut',
  'timed-out': 'TimedOut',
  continued_as_new: 'ContinuedAsNew',
} as const;

export type ListStatus = keyof typeof LIST_STATUS_VALUES;

export interface SweepListFilters {
  model?: string;
  hardware?: string;
  goal?: string;
  status?: string;
}

/** A quoted visibility-query string literal (backslash and quote escaped). */
export function visibilityLiteral(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

export function listStatusValue(status: string): string {
  const key = status.trim().toLowerCase() as ListStatus;
  const value = LIST_STATUS_VALUES[key];
  if (!value) {
    throw new InputError(`unknown --status '${status}'; use one of ${Object.keys(LIST_STATUS_VALUES).filter((k) => k !== 'cancelled' && k !== 'timed-out').join(', ')}`);
  }
  return value;
}

export function sweepListQuery(filters: SweepListFilters): string {
  const clauses = [`WorkflowType = 'sweep'`];
  if (filters.model) clauses.push(`${SPICA_MODEL.name} = ${visibilityLiteral(filters.model)}`);
  if (filters.hardware) clauses.push(`${SPICA_HARDWARE.name} = ${visibilityLiteral(filters.hardware)}`);
  if (filters.goal) clauses.push(`${SPICA_GOAL.name} = ${visibilityLiteral(filters.goal)}`);
  if (filters.status) clauses.push(`ExecutionStatus = ${visibilityLiteral(listStatusValue(filters.status))}`);
  return clauses.join(' AND ');
}
