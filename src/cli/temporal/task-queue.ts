// Is any worker polling a task queue? `spica sweep --detach` refuses to start a workflow nobody
// will run (CLARIFICATIONS §A).
import type { Connection } from '@temporalio/client';

// temporal.api.enums.v1 numbers: TaskQueueKind NORMAL = 1; TaskQueueType WORKFLOW = 1, ACTIVITY = 2.
const KIND_NORMAL = 1;
const TYPE_WORKFLOW = 1;
const TYPE_ACTIVITY = 2;

export interface TaskQueuePollers {
  workflowPollers: number;
  activityPollers: number;
}

export async function describePollers(connection: Connection, namespace: string, taskQueue: string): Promise<TaskQueuePollers> {
  const count = async (taskQueueType: number) => {
    const res = await connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueue, kind: KIND_NORMAL },
      taskQueueType,
    });
    return res.pollers?.length ?? 0;
  };
  const [workflowPollers, activityPollers] = await Promise.all([count(TYPE_WORKFLOW), count(TYPE_ACTIVITY)]);
  return { workflowPollers, activityPollers };
}

/** Both workflow and activity pollers are needed for a sweep to make progress. */
export function hasSweepWorker(p: TaskQueuePollers): boolean {
  return p.workflowPollers > 0 && p.activityPollers > 0;
}
