// `spica list`: the sweep runs on a server, newest first, with the labels their search attributes carry.
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { SPICA_GOAL, SPICA_HARDWARE, SPICA_MODEL } from '../../../workflows/search-attributes.js';
import { sweepListQuery, type SweepListFilters } from './list-query.js';

export interface SweepRunSummary {
  workflowId: string;
  runId: string;
  /** Temporal's status name: RUNNING, COMPLETED, FAILED, TERMINATED, … */
  status: string;
  startTime: string;
  closeTime: string | null;
  taskQueue: string;
  /** From the search attributes; null until the run's plan step upserted them (or when unregistered). */
  model: string | null;
  hardware: string | null;
  goal: string | null;
}

/** Works for list entries and describe() answers alike (only the shared fields are read). */
export function sweepRunSummary(info: Omit<WorkflowExecutionInfo, 'raw'>): SweepRunSummary {
  const sa = info.typedSearchAttributes;
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    status: info.status.name,
    startTime: info.startTime.toISOString(),
    closeTime: info.closeTime ? info.closeTime.toISOString() : null,
    taskQueue: info.taskQueue,
    model: sa.get(SPICA_MODEL) ?? null,
    hardware: sa.get(SPICA_HARDWARE) ?? null,
    goal: sa.get(SPICA_GOAL) ?? null,
  };
}

/** Newest start first. The server's own order (open runs first, then by close time) is not that. */
export function newestFirst(rows: SweepRunSummary[]): SweepRunSummary[] {
  return [...rows].sort((a, b) => (a.startTime < b.startTime ? 1 : a.startTime > b.startTime ? -1 : a.workflowId.localeCompare(b.workflowId)));
}

/**
 * Lists up to `limit` sweep runs. Visibility cannot sort by start time on every backend, so all
 * matching runs are read (page by page) and the newest `limit` kept; `scanCap` bounds the read.
 */
export async function listSweeps(client: Client, filters: SweepListFilters, limit: number, scanCap = 10_000): Promise<SweepRunSummary[]> {
  const rows: SweepRunSummary[] = [];
  for await (const info of client.workflow.list({ query: sweepListQuery(filters), pageSize: 200 })) {
    rows.push(sweepRunSummary(info));
    if (rows.length >= scanCap) break;
  }
  return newestFirst(rows).slice(0, limit);
}

function shortTime(iso: string | null): string {
  return iso === null ? '-' : iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function formatSweepList(rows: SweepRunSummary[]): string {
  if (rows.length === 0) return 'no sweeps found\n';
  const table = [
    ['ID', 'STATUS', 'STARTED', 'CLOSED', 'MODEL', 'HARDWARE', 'GOAL'],
    ...rows.map((r) => [r.workflowId, r.status, shortTime(r.startTime), shortTime(r.closeTime), r.model ?? '-', r.hardware ?? '-', r.goal ?? '-']),
  ];
  const widths = table[0].map((_, c) => Math.max(...table.map((row) => row[c].length)));
  return `${table.map((row) => row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c]))).join('  ')).join('\n')}\n`;
}
