// The one way Spica builds a Temporal worker: `spica worker`, `spica sweep` (in-process) and the
// tests all call `createSpicaWorker`. The workflow bundle is the one prebuilt by `npm run build` while
// it matches the sources, else bundled once (webpack, seconds) and stored for the next process; the
// SDK runtime is installed once with a quiet logger.
import os from 'node:os';
import { formatWithOptions } from 'node:util';
import { ApplicationFailure } from '@temporalio/common';
import { causeChain, StoreUnavailable } from '../../errors.js';
import {
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type LogEntry,
  type LogLevel,
  type ReplayWorkerOptions,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { globalHandlers } from '@temporalio/worker/lib/workflow/vm-shared.js';
import * as activities from '../../../activities/index.js';
import { configureReplayPool, defaultPoolSize, replayPool } from '../../../activities/replay-pool.js';
import { askAndMaterializeAsking, waveHereOn } from '../../../activities/wave-here.js';
import { workflowBundle } from '../../../scripts/build/workflow-bundle.mjs';
import { connectWorker } from './worker-connection.js';
import { SpicaSdkWorker } from './sdk-worker.js';
import { ServerOutageLog } from './server-outage-log.js';
import { spicaBuildId } from './spica-build.js';
import { DEFAULT_TASK_QUEUE, sweepWorkerIdentity, workerIdentity } from './task-queue.js';
import { spicaStore } from '../../store/select.js';

let runtimeInstalled = false;

const format = formatWithOptions.bind(undefined, { colors: false });

/**
 * The SDK's log entries on stderr, as the SDK's default writes them, except a non-retryable activity
 * failure and the typed workflow failure it becomes: that is bad input (a malformed trace, a SKU
 * without a perf database), which the sweep's client reports with its file:line message, so the
 * worker says it in one line instead of printing metadata and stack traces ahead of the clean message.
 * An attempt failed on an unreachable shared store is one line too.
 */
export function spicaLogLine(entry: LogEntry): string {
  const when = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
  const err = entry.meta?.error;
  if (entry.message === 'Activity failed' && err instanceof ApplicationFailure && err.nonRetryable)
    return `${when} [${entry.level}] activity ${String(entry.meta?.activityType ?? '?')} failed, not retried (${err.type ?? 'ApplicationFailure'}): ${err.message}\n`;
  // The core's note that a workflow task ran long (local activities held it: a slow ask, a wave replayed
  // here, a store outage waited out): what and how long, without the payload counters.
  if (entry.message.startsWith('[TMPRL1104]') && typeof entry.meta?.workflowTaskDuration === 'number')
    return `${when} [${entry.level}] ${entry.message.replace(/ Workflow task duration exceeded \d+ seconds\.$/, '')} workflow task of ${String(entry.meta.workflowType ?? '?')} took ${(entry.meta.workflowTaskDuration / 1000).toFixed(1)} s (over the SDK's 5-s warning mark)\n`;
  // The shared store down longer than a call waits (postgres-store.ts): an outage, not a bug to trace.
  if (entry.message === 'Activity failed' && err instanceof StoreUnavailable)
    return `${when} [${entry.level}] activity ${String(entry.meta?.activityType ?? '?')} failed (attempt ${String(entry.meta?.attempt ?? '?')}): ${err.message}\n`;
  // The workflow's failure crosses from its sandbox thread as a plain Error whose stack names the class;
  // from the in-thread sandbox (spica sweep's worker) it is an error of the sandbox's realm, which is
  // no `instanceof Error` here: both are read by shape.
  const sandboxed = typeof err === 'object' && err !== null ? (err as { stack?: unknown; message?: unknown }) : null;
  if (entry.message === 'Workflow failed' && typeof sandboxed?.stack === 'string' && sandboxed.stack.startsWith('ApplicationFailure: '))
    return `${when} [${entry.level}] workflow ${String(entry.meta?.workflowId ?? '?')} failed: ${String(sandboxed.message)}\n`;
  // A branch (and its parent sweep) failed because the store stayed down: the cause, in one line.
  const storeDown = entry.message === 'Workflow failed' ? storeUnavailableCause(err) : null;
  if (storeDown !== null) return `${when} [${entry.level}] workflow ${String(entry.meta?.workflowId ?? '?')} failed: ${storeDown}\n`;
  return entry.meta === undefined ? `${when} [${entry.level}] ${entry.message}\n` : `${when} [${entry.level}] ${entry.message} ${format(entry.meta)}\n`;
}

/** The message of a StoreUnavailable in an error's cause chain, else null. */
function storeUnavailableCause(err: unknown): string | null {
  for (const e of causeChain(err)) {
    const { type, name, message } = e as { type?: unknown; name?: unknown; message?: unknown };
    if ((type === 'StoreUnavailable' || name === 'StoreUnavailable') && typeof message === 'string') return message;
  }
  return null;
}

/**
 * Installs the SDK runtime with a logger at `level` (default WARN) writing to stderr. The Rust core's
 * own logs (payload-size warnings, …) are forwarded to that logger too: left to the core they print
 * on stdout, ahead of a `--json` document; their retry warnings while the server is unreachable are
 * condensed (server-outage-log.ts). Later calls are no-ops.
 */
export function installQuietRuntime(level: LogLevel = 'WARN'): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const outages = new ServerOutageLog();
  try {
    Runtime.install({
      logger: new DefaultLogger(level, (entry) => {
        const line = outages.line(entry, Date.now(), spicaLogLine);
        if (line !== null) process.stderr.write(line);
      }),
      telemetryOptions: { logging: { forward: {}, filter: { core: level, other: level } } },
      // Commands handle SIGINT/SIGTERM themselves (stop worker, then the embedded server, in order).
      shutdownSignals: [],
    });
  } catch {
    // Already installed by someone else in this process (e.g. a test helper): keep theirs.
  }
}

let bundlePromise: Promise<WorkflowBundleWithSourceMap> | undefined;

/** The workflow bundle of `workflows/index.ts`, built on first use and shared afterwards. */
export function spicaWorkflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  installQuietRuntime();
  bundlePromise ??= workflowBundle().catch((err: unknown) => {
    bundlePromise = undefined; // let a later call retry after a fix
    throw err;
  });
  return bundlePromise;
}

export interface SpicaWorkerOptions {
  address: string;
  namespace: string;
  taskQueue?: string;
  /** Activity slots and replay-thread pool size (default: the machine's cores). */
  concurrency?: number;
  /** Worker identity shown in histories (default: workerIdentity, the SDK's pid@host with the store's tag). */
  identity?: string;
  /** A `spica sweep`'s own worker, which stops with its sweep: marked so in its default identity (task-queue.ts). */
  sweepWorker?: boolean;
  /** Persistent result cache directory (sets SPICA_CACHE_DIR for this process). */
  cacheDir?: string;
  /**
   * Run workflow code on this thread instead of the SDK's workflow thread. That thread loads the SDK
   * and its protobuf definitions a second time and gets every activation by message (~0.3 s of CPU at
   * start on a loaded 2-core box): worth it for a long-lived `spica worker`, whose activity thread must
   * stay free while it replays long histories, not for the short in-process worker of `spica sweep`.
   */
  workflowsOnMainThread?: boolean;
  /**
   * Replay a branch's wave on this worker, inside the branch's workflow task, while no other worker
   * polls the task queue for activities (activities/wave-here.ts): `spica sweep`'s in-process worker
   * and `spica worker`. With another worker polling, one replay activity per candidate, so workers
   * that join take their share from the next wave on.
   */
  wavesHere?: boolean;
  /** Use an existing connection (not closed by `close()`). */
  connection?: NativeConnection;
}

/**
 * Two costs of the SDK's in-thread workflow sandbox (its debugMode) that only matter because it then
 * shares the main thread with everything else (SDK 1.24 internals; each step is skipped if the
 * internals are not where 1.24 has them):
 * - The sandbox installs a V8 promise hook for its stack-trace query (the Web UI's "Stack Trace"
 *   tab). In a workflow thread it sees only workflow promises; on the main thread it sees every promise
 *   of the process (the replay pool's messages, gRPC calls, activities) and for each one compiles a
 *   function (`new Function`) to ask whether it belongs to a workflow. Stopped: the workflows then
 *   answer that query with the SDK's "not enabled".
 * - Every call into the sandbox runs under a vm timeout (`isolateExecutionTimeout`, the deadlock
 *   guard), and node starts and joins a watchdog thread per call: ~0.1–0.3 ms each (measured on a
 *   loaded 2-core box, against ~0.02 ms without), over a thousand calls in the dense example. Dropped
 *   for this worker: its workflow code is Spica's own, replay-tested, with the CPU work in (local)
 *   activities, which run on this thread without any such guard anyway; a `spica worker` keeps it.
 */
function lightenMainThreadSandbox(worker: Worker): void {
  const handlers = globalHandlers as unknown as { stopPromiseHook?: () => void; promiseHookInstalled?: boolean };
  if (typeof handlers.stopPromiseHook === 'function' && handlers.promiseHookInstalled === true) {
    handlers.stopPromiseHook();
    handlers.stopPromiseHook = () => undefined;
    handlers.promiseHookInstalled = false;
  }
  const creator = (worker as unknown as { workflowCreator?: { isolateExecutionTimeoutMs?: number } }).workflowCreator;
  if (creator && typeof creator.isolateExecutionTimeoutMs === 'number') creator.isolateExecutionTimeoutMs = undefined;
}

/** The in-process sweep worker's activities: `waveHere` answered for this worker, and polled during each ask. */
function sweepWorkerActivities(here: typeof activities.waveHere): typeof activities {
  return { ...activities, waveHere: here, askAndMaterialize: askAndMaterializeAsking(here) };
}

export interface SpicaWorker {
  worker: Worker;
  connection: NativeConnection;
  taskQueue: string;
  /** The identity it polls with (the server lists its pollers by it). */
  identity: string;
  /** Closes the connection if this function opened it; call after the worker stopped. */
  close(): Promise<void>;
}

export async function createSpicaWorker(opts: SpicaWorkerOptions): Promise<SpicaWorker> {
  installQuietRuntime();
  const workflowBundle = await spicaWorkflowBundle();
  const ownsConnection = opts.connection === undefined;
  const connection = opts.connection ?? (await connectWorker(opts.address));
  const taskQueue = opts.taskQueue ?? DEFAULT_TASK_QUEUE;
  const slots = opts.concurrency ?? defaultPoolSize();
  // One replay thread per activity slot: a wave never waits for a thread another wave holds for long.
  configureReplayPool({ size: slots });
  replayPool().prewarm(); // boot the replay threads while the worker connects
  if (opts.cacheDir) process.env.SPICA_CACHE_DIR = opts.cacheDir;
  // The SDK's default with the store's tag: `waveHere` tells this worker's pollers from the others by
  // it, and sweeps hand their runs only to workers of their own store.
  const identity = opts.identity ?? (opts.sweepWorker ? sweepWorkerIdentity : workerIdentity)(process.pid, os.hostname(), await spicaStore().id());
  try {
    const worker = await SpicaSdkWorker.create({
      connection,
      namespace: opts.namespace,
      taskQueue,
      workflowBundle,
      activities: opts.wavesHere ? sweepWorkerActivities(waveHereOn({ connection, namespace: opts.namespace, taskQueue, identity })) : activities,
      maxConcurrentActivityTaskExecutions: slots,
      // The SDK's in-thread workflow sandbox is its `debugMode` (also what runReplayHistory uses).
      ...(opts.workflowsOnMainThread ? { debugMode: true } : {}),
      identity,
      // Reported with every poll: sweeps hand their runs only to workers of their own build (spica-build.ts).
      buildId: spicaBuildId(),
    });
    if (opts.workflowsOnMainThread) lightenMainThreadSandbox(worker);
    return { worker, connection, taskQueue, identity, close: async () => (ownsConnection ? connection.close() : undefined) };
  } catch (err) {
    if (ownsConnection) await connection.close();
    throw err;
  }
}

/** Options for `Worker.runReplayHistory` matching production (same bundle, same defaults). */
export async function spicaReplayOptions(): Promise<ReplayWorkerOptions> {
  return { workflowBundle: await spicaWorkflowBundle() };
}
