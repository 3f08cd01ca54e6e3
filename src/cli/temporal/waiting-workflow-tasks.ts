// Is anybody working on a run? The server lists a worker as polling for a while after it stopped —
// up to POLLER_LIVE_MS for one on another machine, whose process this one cannot look up — so a run
// handed to such a worker would wait for nobody that long. A live worker starts a workflow task within
// milliseconds of its scheduling; a workflow task of the run (the sweep's, or a branch's) still
// waiting, unstarted, after STALLED_TASK_MS says that no worker is taking its tasks, whatever the
// list shows (handed-over-sweep.ts then runs a worker in the sweep process).
import type { Connection } from '@temporalio/client';

/** How long a workflow task may wait unstarted before its run counts as having no worker. */
export const STALLED_TASK_MS = 10_000;

// temporal.api.enums.v1.PendingWorkflowTaskState SCHEDULED (STARTED = 2).
const PENDING_WORKFLOW_TASK_SCHEDULED = 1;

/**
 * The workflow tasks of a run that wait for a worker now: the sweep workflow's and its open
 * branches', one key each (workflow id and scheduled time: a new task of the same workflow is a new key).
 */
export async function scheduledWorkflowTasks(connection: Connection, namespace: string, workflowId: string): Promise<string[]> {
  const describe = (id: string) => connection.workflowService.describeWorkflowExecution({ namespace, execution: { workflowId: id } });
  const parent = await describe(workflowId);
  const children = await Promise.all((parent.pendingChildren ?? []).map((c) => (c.workflowId ? describe(c.workflowId).catch(() => null) : null)));
  const keys: string[] = [];
  for (const [id, d] of [[workflowId, parent], ...(parent.pendingChildren ?? []).map((c, i) => [c.workflowId ?? '', children[i]] as const)] as const) {
    const task = d?.pendingWorkflowTask;
    if (task && Number(task.state) === PENDING_WORKFLOW_TASK_SCHEDULED) {
      keys.push(`${id}@${String(task.scheduledTime?.seconds ?? 0)}.${task.scheduledTime?.nanos ?? 0}`);
    }
  }
  return keys;
}

/**
 * Remembers when (on this machine's clock: the server's may differ) each waiting workflow task was
 * first seen; a task no longer waiting is forgotten.
 */
export class WorkflowTaskWatch {
  private readonly firstSeen = new Map<string, number>();

  /** Records the tasks waiting at `nowMs`; returns how long the longest-known of them has waited (0: none). */
  observe(waiting: readonly string[], nowMs: number): number {
    const now = new Set(waiting);
    for (const key of this.firstSeen.keys()) if (!now.has(key)) this.firstSeen.delete(key);
    let longest = 0;
    for (const key of now) {
      const since = this.firstSeen.get(key);
      if (since === undefined) this.firstSeen.set(key, nowMs);
      else longest = Math.max(longest, nowMs - since);
    }
    return longest;
  }
}
