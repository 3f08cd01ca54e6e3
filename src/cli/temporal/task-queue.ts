// Is any worker polling a task queue? `spica sweep` hands its run to the workers already polling
// (else runs its own), `--detach` refuses to start a workflow nobody will run (CLARIFICATIONS §A), and
// a worker replays a wave itself only while no other worker polls for activities (activities/wave-here.ts).
import os from 'node:os';
import type { Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { TemporalUnavailable } from '../../errors.js';
import { spicaStore } from '../../store/select.js';
import { spicaBuildId } from './spica-build.js';

// temporal.api.enums.v1 numbers: TaskQueueKind NORMAL = 1; TaskQueueType WORKFLOW = 1, ACTIVITY = 2.
const KIND_NORMAL = 1;
const TYPE_WORKFLOW = 1;
const TYPE_ACTIVITY = 2;

/** The task queue Spica's workers poll and its sweeps run on unless told otherwise. */
export const DEFAULT_TASK_QUEUE = 'spica';

export interface TaskQueuePollers {
  workflowPollers: number;
  activityPollers: number;
  /** Live workers of any kind whose build is not this checkout's (spica-build.ts), one entry per identity. */
  foreign: TaskQueuePoller[];
  /** Live workers of any kind whose identity names another store than this process's (workerIdentity), one entry per identity. */
  otherStores: TaskQueuePoller[];
}

/**
 * The workers that may be polling a task queue now, by task type: the pollers DescribeTaskQueue lists
 * minus those that cannot be alive (`otherLivePollers`). The server keeps listing a worker for minutes
 * after it stopped — a `spica sweep` that just ended, a killed `spica worker` — and a start handed to
 * it would wait for nobody. `lasting`: only workers that stay (not a `spica sweep`'s own, which stops
 * with its sweep), the ones a run may be handed to.
 */
export async function describePollers(
  connection: Connection | NativeConnection,
  namespace: string,
  taskQueue: string,
  opts: { lasting?: boolean } = {},
): Promise<TaskQueuePollers> {
  const live = async (type: PollerType) => otherLivePollers(await taskQueuePollers(connection, namespace, taskQueue, type), '', Date.now(), os.hostname(), pidAlive);
  const [workflow, activity] = await Promise.all([live('workflow'), live('activity')]);
  const count = (pollers: TaskQueuePoller[]) => (opts.lasting ? pollers.filter((p) => !isSweepWorker(p.identity)) : pollers).length;
  const all = [...workflow, ...activity];
  // This process's store is looked at only when some worker names one (a file read, or a query).
  const ourStore = all.some((p) => storeTagOf(p.identity) !== null) ? storeTag(await spicaStore().id()) : '';
  return {
    workflowPollers: count(workflow),
    activityPollers: count(activity),
    foreign: onePerIdentity(all, (p) => p.buildId !== spicaBuildId()),
    otherStores: onePerIdentity(all, (p) => ![null, ourStore].includes(storeTagOf(p.identity))),
  };
}

/** The pollers whose build is not `build` (none reported counts as another), one per identity. */
export function foreignBuilds(pollers: readonly TaskQueuePoller[], build: string): TaskQueuePoller[] {
  return onePerIdentity(pollers, (p) => p.buildId !== build);
}

function onePerIdentity(pollers: readonly TaskQueuePoller[], keep: (p: TaskQueuePoller) => boolean): TaskQueuePoller[] {
  const byIdentity = new Map<string, TaskQueuePoller>();
  for (const p of pollers) if (keep(p) && !byIdentity.has(p.identity)) byIdentity.set(p.identity, p);
  return [...byIdentity.values()];
}

/**
 * `identity (build id, last poll N s ago)`, comma-separated: the workers of another build, as the
 * messages name them. The age tells a worker just stopped (still listed, up to POLLER_LIVE_MS) from one
 * that runs: a live worker's long poll is renewed at least every minute.
 */
export function foreignList(foreign: readonly TaskQueuePoller[], nowMs: number = Date.now()): string {
  return foreign.map((p) => `${p.identity} (build ${p.buildId ?? 'not reported'}, last poll ${Math.max(0, Math.round((nowMs - p.lastAccessMs) / 1000))} s ago)`).join(', ');
}

/**
 * Refuses (exit 3) to start or follow a run on a task queue that live workers of another Spica build,
 * or of another store, poll: they would take some of its workflow tasks and replays, and the answer
 * would mix two builds, or its trials, results and cache would go where this process does not look
 * (its `--store` silently ignored).
 */
export function requireOwnBuildAndStore(pollers: TaskQueuePollers, taskQueue: string): void {
  if (pollers.otherStores.length > 0) {
    throw new TemporalUnavailable(
      `task queue '${taskQueue}' is polled by worker(s) that use another store than this process's (${spicaStore().describe()}): ${pollers.otherStores.map((p) => p.identity).join(', ')}; ` +
        `a run there would keep its trials, results and replay cache where this process does not read them. Start them with this store (--store, or the same directories), stop them, or run on another task queue (--task-queue); ` +
        `a worker stopped on another machine stays listed until ${POLLER_LIVE_MS / 1000} s after its last poll`,
    );
  }
  if (pollers.foreign.length === 0) return;
  throw new TemporalUnavailable(
    `task queue '${taskQueue}' is polled by worker(s) of another Spica build than this checkout's (${spicaBuildId()}): ${foreignList(pollers.foreign)}; ` +
      `their replays and optimizer would not be this checkout's. Restart them from this checkout, stop them, or run on another task queue (--task-queue); ` +
      `a worker stopped on another machine stays listed until ${POLLER_LIVE_MS / 1000} s after its last poll`,
  );
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
  /** The build id the worker reports (a Spica worker: spica-build.ts); null when none. */
  buildId: string | null;
}

/**
 * How long after its last poll request a poller may still be alive: the server holds a long poll up
 * to a minute (matching.longPollExpirationInterval) before the worker polls again. The server keeps
 * listing a worker that stopped for minutes, so this is the only sign of life the list gives.
 */
export const POLLER_LIVE_MS = 70_000;

/** Marks the identity of a `spica sweep`'s in-process worker, which polls only while its sweep runs. */
const SWEEP_WORKER_MARK = ':spica-sweep';
/** Names the worker's store in its identity: `#store-` and the start of the store's id. */
const STORE_MARK = '#store-';
const STORE_TAG = /#store-([0-9a-z]+)/;

/** The part of a store id (SpicaStore.id) a worker identity carries. */
export function storeTag(storeId: string): string {
  return storeId.toLowerCase().replace(/[^0-9a-z]/g, '').slice(0, 12);
}

/** The store tag a worker identity carries, or null (a worker that names none: not a Spica worker, or an older one). */
export function storeTagOf(identity: string): string | null {
  return STORE_TAG.exec(identity)?.[1] ?? null;
}

/** A Spica worker's identity: the SDK's `<pid>@<host>`, then its store's tag when given. */
export function workerIdentity(pid: number, host: string, storeId?: string): string {
  return `${pid}@${host}${storeId === undefined ? '' : `${STORE_MARK}${storeTag(storeId)}`}`;
}

/** The identity of this process's in-process sweep worker: workerIdentity, marked. */
export function sweepWorkerIdentity(pid: number, host: string, storeId?: string): string {
  return `${workerIdentity(pid, host, storeId)}${SWEEP_WORKER_MARK}`;
}

export function isSweepWorker(identity: string): boolean {
  return identity.endsWith(SWEEP_WORKER_MARK);
}

/** `<pid>@<host>`, with or without a store tag and the sweep worker's mark. */
const LOCAL_IDENTITY = new RegExp(`^(\\d+)@(.*?)(?:${STORE_MARK}[0-9a-z]+)?(?:${SWEEP_WORKER_MARK})?$`);

/**
 * Pollers of the list other than `self` that may be alive: polled within POLLER_LIVE_MS, and, for the
 * SDK's default identity `<pid>@<host>` (or a sweep worker's, marked) on this host, a process with that
 * pid exists (a `spica sweep` that ended a moment ago stays listed for minutes). `pidAlive` is injected for tests.
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
    const local = LOCAL_IDENTITY.exec(p.identity);
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

type PollerType = 'workflow' | 'activity';

/** The pollers of a task queue for one task type, as the server lists them (live or not). */
export async function taskQueuePollers(connection: Connection | NativeConnection, namespace: string, taskQueue: string, type: PollerType): Promise<TaskQueuePoller[]> {
  const res = await connection.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue, kind: KIND_NORMAL },
    taskQueueType: type === 'workflow' ? TYPE_WORKFLOW : TYPE_ACTIVITY,
  });
  return (res.pollers ?? []).map((p) => ({
    identity: p.identity ?? '',
    lastAccessMs: Number(p.lastAccessTime?.seconds ?? 0) * 1000 + Math.floor((p.lastAccessTime?.nanos ?? 0) / 1e6),
    buildId: p.workerVersionCapabilities?.buildId || p.deploymentOptions?.buildId || null,
  }));
}

/**
 * Resolves once the server lists `identity` among the task queue's workflow and activity pollers (a
 * worker's first polls reach it a moment after it starts running), or after `timeoutMs`, or when the
 * server cannot say: a worker's ready line then means a sweep started at once is handed to it.
 */
export async function untilListedAsPolling(connection: Connection | NativeConnection, namespace: string, taskQueue: string, identity: string, timeoutMs = 10_000): Promise<void> {
  const listed = async (type: PollerType) => (await taskQueuePollers(connection, namespace, taskQueue, type)).some((p) => p.identity === identity);
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    const both = await Promise.all([listed('workflow'), listed('activity')]).catch(() => null);
    if (both === null || both.every(Boolean)) return;
  }
}

/** The activity pollers of a task queue. */
export function activityPollers(connection: Connection | NativeConnection, namespace: string, taskQueue: string): Promise<TaskQueuePoller[]> {
  return taskQueuePollers(connection, namespace, taskQueue, 'activity');
}
