// Is any worker polling a task queue? `spica sweep --detach` refuses to start a workflow nobody
// will run (CLARIFICATIONS §A); `spica sweep`'s in-process worker replays a wave itself only while no
// other worker polls for activities (activities/wave-here.ts).
import type { Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';

// temporal.api.enums.v1 numbers: TaskQueueKind NORMAL = 1; TaskQueueType WORKFLOW = 1, ACTIVITY = 2.
const KIND_NORMAL = 1;
const TYPE_WORKFLOW = 1;
const TYPE_ACTIVITY = 2;

/** The task queue Spica's workers poll and its sweeps run on unless told otherwise. */
export const DEFAULT_TASK_QUEUE = 'spica';

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

/** A poller as DescribeTaskQueue lists it. */
export interface TaskQueuePoller {
  identity: string;
  /** Epoch ms of its last poll request. */
  lastAccessMs: number;
}

/**
 * How long after its last poll request a poller may still be alive: the server holds a long poll up
 * to a minute (matching.longPollExpirationInterval) before the worker polls again. The server keeps
 * listing a worker that stopped for minutes, so this is the only sign of life the list gives.
 */
export const POLLER_LIVE_MS = 70_000;

/**
 * Pollers of the list other than `self` that may be alive: polled within POLLER_LIVE_MS, and, for the
 * SDK's default identity `<pid>@<host>` on this host, a process with that pid exists (a `spica sweep`
 * that ended a moment ago stays listed for minutes). `pidAlive` is injected for tests.
 */
export function otherLivePollers(
  pollers: readonly TaskQueuePoller[],
  self: string,
  nowMs: number,
  host: string,
  pidAlive: (pid: number) => boolean,
): TaskQueuePoller[] {
  return pollers.filter((p) => {
    if (p.identity === self || nowMs - p.lastAccessMs > POLLER_LIVE_MS) return false;
    const local = /^(\d+)@(.*)$/.exec(p.identity);
    return !(local && local[2] === host && !pidAlive(Number(local[1])));
  });
}

/** Whether a process with this pid exists on this machine (EPERM: it does, under another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The activity pollers of a task queue. */
export async function activityPollers(connection: Connection | NativeConnection, namespace: string, taskQueue: string): Promise<TaskQueuePoller[]> {
  const res = await connection.workflowService.describeTaskQueue({ namespace, taskQueue: { name: taskQueue, kind: KIND_NORMAL }, taskQueueType: TYPE_ACTIVITY });
  return (res.pollers ?? []).map((p) => ({
    identity: p.identity ?? '',
    lastAccessMs: Number(p.lastAccessTime?.seconds ?? 0) * 1000 + Math.floor((p.lastAccessTime?.nanos ?? 0) / 1e6),
  }));
}
