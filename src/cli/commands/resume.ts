// `spica resume <id>`: continue a failed, terminated, timed-out or cancelled sweep in a new run
// `<id>-resume-<n>` seeded by the persistent result cache (see src/cli/sweeps/sweep-resume.ts).
import { parseArgs } from 'node:util';
import { Client, WorkflowFailedError } from '@temporalio/client';
import type { Command, CommandIo } from '../command.js';
import { InputError } from '../../errors.js';
import { connectClient } from '../temporal/client-connection.js';
import { openSweepTarget, registerSweepAttributes, requireSweepWorker } from '../temporal/sweep-session.js';
import { processShutdownSignal } from '../temporal/shutdown-signal.js';
import { describePollers, hasSweepWorker, requireOwnBuildAndStore } from '../temporal/task-queue.js';
import type { SweepResult } from '../../search/sweepResult.js';
import { asCliError } from '../sweeps/management-session.js';
import { formatSweepResult } from '../temporal/sweep-summary.js';
import { resumeSource, startResumedSweep } from '../sweeps/sweep-resume.js';
import { sweepFailureError } from '../sweeps/sweep-failure.js';

import { requireUsableStore, STORE_OPTION_USAGE, useStoreFlag } from '../../store/select.js';
const usage = `Usage: spica resume <workflow-id> [options]

Continue a FAILED, TERMINATED, TIMED_OUT or CANCELLED sweep: a new run '<id>-resume-<n>' (first
free n) starts with the old run's input on its task queue. The optimizer is deterministic for a
config and seed, and every finished replay is in the persistent result cache (.spica/cache/ or
SPICA_CACHE_DIR on the worker), so the new run re-derives the same trials and replays only those
the old run had not finished. The new id goes to stderr (stdout with --detach); the result to stdout.

Where it runs: like \`spica sweep\` — --address, TEMPORAL_ADDRESS or the temporal.toml profile, else
the embedded dev server (temporal-dev.yaml; reused when \`spica server\` runs). Who runs it: like
\`spica sweep\` — the \`spica worker\`s polling the task queue if any (this process follows the run and
runs a worker itself should they all go away), else a worker in this process.

Options:
  --address HOST:PORT  Temporal frontend
  --namespace NAME     namespace
  --task-queue NAME    task queue of the new run (default: the old run's)
  --detach             start and return at once, printing the new id; needs a worker polling
  --json               print the SweepResult as one JSON document
${STORE_OPTION_USAGE}
`;

interface ResumeArgs {
  id: string;
  address?: string;
  namespace?: string;
  taskQueue?: string;
  detach: boolean;
  json: boolean;
}

function parseResumeArgs(argv: string[]): ResumeArgs {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      address: { type: 'string' },
      namespace: { type: 'string' },
      'task-queue': { type: 'string' },
      detach: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      store: { type: 'string' },
    },
    allowPositionals: true,
  });
  useStoreFlag(values.store);
  if (positionals.length !== 1) throw new InputError(`expected exactly one workflow id, got ${positionals.length} (see \`spica resume --help\`)`);
  return {
    id: positionals[0],
    address: values.address,
    namespace: values.namespace,
    taskQueue: values['task-queue'],
    detach: values.detach ?? false,
    json: values.json ?? false,
  };
}

export async function runResume(args: ResumeArgs, io: CommandIo, signal: AbortSignal): Promise<number> {
  await requireUsableStore();
  // The old run's history lives in the embedded server's SQLite file when no address is configured.
  const { address, namespace, server } = await openSweepTarget({ address: args.address, namespace: args.namespace, detach: args.detach, io });

  const connection = await connectClient(address);
  let newId = '(not started)';
  try {
    const client = new Client({ connection, namespace });
    const source = await resumeSource(client, args.id);
    const taskQueue = args.taskQueue ?? source.taskQueue;
    io.stderr(`resuming ${source.status} sweep ${source.workflowId} (run ${source.runId}) on task queue '${taskQueue}'\n`);

    if (args.detach) {
      await registerSweepAttributes(connection, namespace, io);
      await requireSweepWorker(connection, namespace, taskQueue, address);
      const handle = await startResumedSweep(client, source, taskQueue);
      io.stderr(`workflow id: ${handle.workflowId}\n`);
      io.stdout(args.json ? `${JSON.stringify({ workflowId: handle.workflowId, runId: handle.firstExecutionRunId, resumed: source.workflowId })}\n` : `${handle.workflowId}\n`);
      return 0;
    }

    // Workers already polling the task queue take the new run, as for `spica sweep`; else this process runs one.
    const pollers = await describePollers(connection, namespace, taskQueue, { lasting: true });
    requireOwnBuildAndStore(pollers, taskQueue);
    let result: SweepResult;
    if (hasSweepWorker(pollers)) {
      await registerSweepAttributes(connection, namespace, io);
      const handle = await startResumedSweep(client, source, taskQueue);
      newId = handle.workflowId;
      io.stderr(`workflow id: ${newId}\n`);
      const { followHandedOverRun } = await import('../sweeps/handed-over-sweep.js');
      const outcome = await followHandedOverRun(client, handle, io, signal, { address, namespace, taskQueue, connection, workers: pollers.workflowPollers });
      if ('interrupted' in outcome) return 130;
      result = outcome.result;
    } else {
      // The worker `spica sweep` runs when none polls (in-process-sweep.ts): same worker, progress lines,
      // eager start; it registers the search attributes itself.
      const { runOnOwnWorker } = await import('../sweeps/in-process-sweep.js');
      const started = (id: string) => (newId = id);
      const outcome = await runOnOwnWorker({ address, namespace, taskQueue }, io, signal, started, (own) => () => startResumedSweep(own, source, taskQueue, true));
      if ('interrupted' in outcome) return 130;
      result = outcome.result;
    }
    io.stderr(`${result.counts.cache_hits} of ${result.counts.evaluated} trials were served from the persistent cache (not replayed)\n`);
    io.stdout(args.json ? `${JSON.stringify(result)}\n` : formatSweepResult(result));
    return result.counts.feasible > 0 ? 0 : 1;
  } catch (err) {
    if (err instanceof WorkflowFailedError) throw sweepFailureError(err, newId);
    throw asCliError(err, address, `resume ${args.id}`);
  } finally {
    await connection.close();
    await server?.stop();
  }
}

export const command: Command = {
  name: 'resume',
  summary: 'continue a failed/terminated sweep in a new run without replaying finished trials',
  usage,
  async run(argv, io) {
    const args = parseResumeArgs(argv);
    const shutdown = processShutdownSignal();
    try {
      return await runResume(args, io, shutdown.signal);
    } finally {
      shutdown.dispose();
    }
  },
};
