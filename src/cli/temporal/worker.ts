// The one way Spica builds a Temporal worker: `spica worker`, `spica sweep` (in-process) and the
// tests all call `createSpicaWorker`. The workflow bundle is built once per process and reused
// (webpack bundling costs seconds); the SDK runtime is installed once with a quiet logger.
import { fileURLToPath } from 'node:url';
import {
  bundleWorkflowCode,
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type Logger,
  type LogLevel,
  type ReplayWorkerOptions,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import * as activities from '../../../activities/index.js';
import { connectWorker } from './client-connection.js';

export const DEFAULT_TASK_QUEUE = 'spica';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../../../workflows/index.ts', import.meta.url));

let runtimeInstalled = false;

/** Installs the SDK runtime with a logger at `level` (default WARN). Later calls are no-ops. */
export function installQuietRuntime(level: LogLevel = 'WARN'): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    // Commands handle SIGINT/SIGTERM themselves (stop worker, then the embedded server, in order).
    Runtime.install({ logger: new DefaultLogger(level), shutdownSignals: [] });
  } catch {
    // Already installed by someone else in this process (e.g. a test helper): keep theirs.
  }
}

let bundlePromise: Promise<WorkflowBundleWithSourceMap> | undefined;

/** The workflow bundle of `workflows/index.ts`, built on first use and shared afterwards. */
export function spicaWorkflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  installQuietRuntime();
  bundlePromise ??= bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    logger: new DefaultLogger('ERROR') as Logger,
  }).catch((err: unknown) => {
    bundlePromise = undefined; // let a later call retry after a fix
    throw err;
  });
  return bundlePromise;
}

export interface SpicaWorkerOptions {
  address: string;
  namespace: string;
  taskQueue?: string;
  /** Max concurrent activity executions (default: SDK default). */
  concurrency?: number;
  /** Use an existing connection (not closed by `close()`). */
  connection?: NativeConnection;
}

export interface SpicaWorker {
  worker: Worker;
  connection: NativeConnection;
  taskQueue: string;
  /** Closes the connection if this function opened it; call after the worker stopped. */
  close(): Promise<void>;
}

export async function createSpicaWorker(opts: SpicaWorkerOptions): Promise<SpicaWorker> {
  installQuietRuntime();
  const workflowBundle = await spicaWorkflowBundle();
  const ownsConnection = opts.connection === undefined;
  const connection = opts.connection ?? (await connectWorker(opts.address));
  const taskQueue = opts.taskQueue ?? DEFAULT_TASK_QUEUE;
  try {
    const worker = await Worker.create({
      connection,
      namespace: opts.namespace,
      taskQueue,
      workflowBundle,
      activities,
      ...(opts.concurrency ? { maxConcurrentActivityTaskExecutions: opts.concurrency } : {}),
    });
    return { worker, connection, taskQueue, close: async () => (ownsConnection ? connection.close() : undefined) };
  } catch (err) {
    if (ownsConnection) await connection.close();
    throw err;
  }
}

/** Options for `Worker.runReplayHistory` matching production (same bundle, same defaults). */
export async function spicaReplayOptions(): Promise<ReplayWorkerOptions> {
  return { workflowBundle: await spicaWorkflowBundle() };
}
