// What `spica sweep` and `spica resume` share before a run starts: finding the Temporal server (the
// configured address, else the embedded dev server — started or reused; a detached run needs one that
// is already up), registering the sweep search attributes, and the "is a worker polling?" check.
import type { Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { TemporalUnavailable } from '../../errors.js';
import { SWEEP_SEARCH_ATTRIBUTES } from '../../../workflows/search-attributes.js';
import type { CommandIo } from '../command.js';
import { provisionTemporalCli } from './cli-binary.js';
import { START_SERVER_HINT } from './client-connection.js';
import { resolveTemporalTarget } from './connection-target.js';
import { devServerAddress, loadDevServerConfig } from './dev-config.js';
import { startDevServer, type DevServerHandle } from './dev-server.js';
import { isTemporalReachable } from './reachability.js';
import { ensureSearchAttributes } from './search-attribute-registration.js';
import { describePollers, hasSweepWorker, requireOwnBuildAndStore } from './task-queue.js';

export interface SweepTarget {
  address: string;
  namespace: string;
  /** The embedded server this process started or reused (stop it when done). */
  server?: DevServerHandle;
}

export async function openSweepTarget(opts: { address?: string; namespace?: string; detach: boolean; io: CommandIo }): Promise<SweepTarget> {
  const target = resolveTemporalTarget({ address: opts.address, namespace: opts.namespace });
  if (target.address !== undefined) return { address: target.address, namespace: target.namespace };
  const devConfig = loadDevServerConfig();
  if (opts.detach) {
    // Detached runs outlive this process, so they need a server someone else keeps running.
    const address = devServerAddress(devConfig);
    if (!(await isTemporalReachable(address))) {
      throw new TemporalUnavailable(`--detach needs a running Temporal server and worker; none at ${address}: ${START_SERVER_HINT}`);
    }
    return { address, namespace: target.namespace };
  }
  const cli = await provisionTemporalCli({ log: (l) => opts.io.stderr(`provision: ${l}\n`) });
  const server = await startDevServer(devConfig, { cliPath: cli.path });
  for (const w of server.warnings) opts.io.stderr(`warning: ${w}\n`);
  opts.io.stderr(`${server.reused ? 'using the Temporal server' : 'started the embedded Temporal server'} at ${server.address}\n`);
  return { address: server.address, namespace: target.namespace, server };
}

/** Registers the sweep search attributes if missing; warns (never fails) when the server refuses. */
export async function registerSweepAttributes(connection: Connection | NativeConnection, namespace: string, io: CommandIo): Promise<void> {
  const outcome = await ensureSearchAttributes(connection, namespace, SWEEP_SEARCH_ATTRIBUTES);
  for (const w of outcome.warnings) io.stderr(`warning: ${w}\n`);
}

/** A detached start needs a worker of this build already polling the task queue (Clarification A: else exit 3). */
export async function requireSweepWorker(connection: Connection, namespace: string, taskQueue: string, address: string): Promise<void> {
  const pollers = await describePollers(connection, namespace, taskQueue, { lasting: true });
  requireOwnBuildAndStore(pollers, taskQueue);
  if (!hasSweepWorker(pollers)) {
    throw new TemporalUnavailable(
      `--detach needs a worker polling task queue '${taskQueue}' on ${address}, and none is; start one with \`spica worker --address ${address} --task-queue ${taskQueue}\` (\`spica server\` starts the embedded server with a worker beside it)`,
    );
  }
}
