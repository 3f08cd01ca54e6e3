// `spica status <id>`: what describe says about a sweep run plus its progress (per-branch round,
// trials, counts, best so far, ETA): a completed run's from its result, which carries the final
// progress; otherwise the `progress` query when a worker can answer it. Queries replay the workflow on
// a worker — for a closed run too — so without a poller only describe is shown.
import type { Client, Connection } from '@temporalio/client';
import { InputError } from '../../errors.js';
import { splitOutcome, type BranchProgress, type SweepOutcome, type SweepProgress } from '../../../workflows/sweep-types.js';
import { formatDuration, trialCount } from '../temporal/sweep-progress.js';
import { describePollers } from '../temporal/task-queue.js';
import { liveSweepProgress } from './live-progress.js';
import { sweepRunSummary, type SweepRunSummary } from './sweep-listing.js';

export interface SweepStatusReport extends SweepRunSummary {
  historyLength: number;
  progress: SweepProgress | null;
  /** Why `progress` is null (no worker, query failed); null when it answered. */
  progress_note: string | null;
}

const QUERY_DEADLINE_MS = 10_000;

/** Fails with exit 2 when the id is not a sweep parent (e.g. a branchStudy child). */
export function requireSweepType(type: string, workflowId: string): void {
  if (type !== 'sweep') throw new InputError(`workflow '${workflowId}' is a '${type}' workflow, not a sweep (branch children end in /branch-<mode>; pass the parent id)`);
}

export async function sweepStatus(client: Client, connection: Connection, namespace: string, workflowId: string): Promise<SweepStatusReport> {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  requireSweepType(description.type, workflowId);
  const base = { ...sweepRunSummary(description), historyLength: description.historyLength };
  // No worker needed (the in-process worker of the `spica sweep` that ran it is gone, yet the server
  // lists its pollers for minutes, so a query would be tried and fail). Runs recorded before results
  // carried their progress fall through to the query.
  if (description.status.name === 'COMPLETED') {
    const { progress } = splitOutcome((await handle.result()) as SweepOutcome);
    if (progress) return { ...base, progress, progress_note: null };
  }
  const pollers = await describePollers(connection, namespace, description.taskQueue);
  if (pollers.workflowPollers === 0) {
    return {
      ...base,
      progress: null,
      progress_note: `no worker polls task queue '${description.taskQueue}', so the progress query cannot be answered; start one with \`spica worker --task-queue ${description.taskQueue}\``,
    };
  }
  try {
    const progress = await connection.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => liveSweepProgress(client, handle));
    return { ...base, progress, progress_note: null };
  } catch (err) {
    return { ...base, progress: null, progress_note: `the progress query did not answer: ${(err as Error).message}` };
  }
}

function branchLine(b: BranchProgress): string {
  const best = b.best ? `best ${b.best.objective}=${Number(b.best.value.toPrecision(6))} (trial ${b.best.trial})` : 'no feasible trial yet';
  const front = b.pareto_front_size === null ? '' : `, Pareto front ${b.pareto_front_size}`;
  const stop = b.stop_reason ? `, stopped: ${b.stop_reason}` : '';
  const trials = trialCount([b]);
  return (
    `  ${b.deployment_mode} [${b.status}] round ${b.round}/${b.max_rounds}, trials ${trials.done}/${trials.wanted} ` +
    `(feasible ${b.feasible}, infeasible ${b.infeasible}, failed ${b.failed}, timed_out ${b.timed_out}, unsupported ${b.unsupported}); ` +
    `${best}${front}; ETA ${formatDuration(b.eta_seconds)}${stop}`
  );
}

export function formatSweepStatus(r: SweepStatusReport): string {
  const lines = [
    `sweep ${r.workflowId} (run ${r.runId}): ${r.status}`,
    `  started ${r.startTime}${r.closeTime ? `, closed ${r.closeTime}` : ''}; task queue ${r.taskQueue}; ${r.historyLength} history events`,
    `  model ${r.model ?? '-'}, hardware ${r.hardware ?? '-'}, goal ${r.goal ?? '-'}`,
  ];
  if (r.progress) {
    lines.push(`  phase ${r.progress.phase}${r.progress.stop_requested ? ' (stop requested)' : ''}`);
    for (const b of r.progress.branches) lines.push(branchLine(b));
  } else if (r.progress_note) {
    lines.push(`  progress: ${r.progress_note}`);
  }
  return `${lines.join('\n')}\n`;
}
