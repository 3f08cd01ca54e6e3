// `spica schedule create|list|delete|trigger`: recurring re-sweeps as Temporal Schedules.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ScheduleAlreadyRunning, ScheduleNotFoundError, ServiceError } from '@temporalio/client';
import type { Command, CommandIo } from '../command.js';
import { InputError } from '../../errors.js';
import { loadConfigFile } from '../../config/load.js';
import { SWEEP_SEARCH_ATTRIBUTES } from '../../../workflows/search-attributes.js';
import { ensureSearchAttributes } from '../temporal/search-attribute-registration.js';
import { describePollers, foreignList, hasSweepWorker } from '../temporal/task-queue.js';
import { DEFAULT_TASK_QUEUE } from '../temporal/task-queue.js';
import { withManagementSession, type ManagementSession } from '../sweeps/management-session.js';
import {
  checkCron,
  checkTimezone,
  defaultScheduleId,
  formatScheduleList,
  isSweepSchedule,
  scheduleView,
  sweepScheduleOptions,
  type ScheduleView,
} from '../sweeps/sweep-schedule.js';

const usage = `Usage: spica schedule <create|list|delete|trigger> [options]

Recurring re-sweeps as Temporal Schedules. Each action starts the 'sweep' workflow with the config
(workflow id '<schedule id>-<scheduled time>'); overlap policy SKIP (a run still going skips the
next), catch-up window 1 hour. Replays already in the worker's persistent cache are not re-run.

  spica schedule create <config.yaml> --cron "0 2 * * *" [--id ID] [--timezone TZ] [--task-queue Q]
      validate the config (exit 2 on errors) and create the schedule; prints its id
      (default id: spica-schedule-<config hash>-<seed>)
  spica schedule list [--json]        sweep schedules: cron, next runs, last run
  spica schedule delete <id>          delete a schedule (its past runs stay)
  spica schedule trigger <id>         start one run now; prints the new workflow id

Common options:
  --address HOST:PORT  Temporal frontend (default: TEMPORAL_ADDRESS, the temporal.toml profile,
                       else the embedded server of temporal-dev.yaml, started by \`spica server\`)
  --namespace NAME     namespace
`;

const CONNECTION = { address: { type: 'string' }, namespace: { type: 'string' } } as const;

function onlyOneId(positionals: string[], sub: string): string {
  if (positionals.length !== 1) throw new InputError(`spica schedule ${sub} expects exactly one schedule id, got ${positionals.length}`);
  return positionals[0];
}

/** Not-found and already-exists are the user's input (exit 2); so is a cron the server rejects. */
function scheduleInputError(err: unknown, scheduleId: string): unknown {
  if (err instanceof ScheduleNotFoundError) return new InputError(`no schedule '${scheduleId}' (\`spica schedule list\` shows them)`);
  if (err instanceof ScheduleAlreadyRunning) return new InputError(`schedule '${scheduleId}' already exists; pick another --id or delete it first`);
  if (err instanceof ServiceError && (err.cause as { code?: number } | undefined)?.code === 3) {
    return new InputError(`the server rejected schedule '${scheduleId}': ${err.message}`);
  }
  return err;
}

async function create(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...CONNECTION, cron: { type: 'string' }, id: { type: 'string' }, timezone: { type: 'string' }, 'task-queue': { type: 'string' } },
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new InputError(`spica schedule create expects exactly one config file, got ${positionals.length}`);
  // Everything the user can get wrong is checked before touching the server.
  const config = loadConfigFile(path.resolve(positionals[0]));
  const cron = checkCron(values.cron ?? '');
  const timezone = values.timezone === undefined ? undefined : checkTimezone(values.timezone);
  const scheduleId = values.id ?? defaultScheduleId(config);
  const taskQueue = values['task-queue'] ?? DEFAULT_TASK_QUEUE;
  await withManagementSession(values, `schedule create ${scheduleId}`, async (s) => {
    const registration = await ensureSearchAttributes(s.connection, s.namespace, SWEEP_SEARCH_ATTRIBUTES);
    for (const w of registration.warnings) io.stderr(`warning: ${w}\n`);
    const options = sweepScheduleOptions({ scheduleId, cron, timezone, config, taskQueue, registeredSearchAttributes: registration.available });
    try {
      await s.client.schedule.create(options);
    } catch (err) {
      // The SDK turns the server's "Invalid schedule spec" (a bad cron field) into a TypeError.
      if (err instanceof TypeError) throw new InputError(`--cron "${cron}" is not a valid schedule: ${err.message}`);
      throw scheduleInputError(err, scheduleId);
    }
    const view = scheduleView(await s.client.schedule.getHandle(scheduleId).describe());
    io.stderr(`created schedule ${scheduleId} (cron "${cron}"${timezone ? ` ${timezone}` : ''}); next run ${view.next_runs[0] ?? '-'}\n`);
    const pollers = await describePollers(s.connection, s.namespace, taskQueue, { lasting: true });
    if (!hasSweepWorker(pollers)) {
      io.stderr(`warning: no worker polls task queue '${taskQueue}' yet; scheduled runs wait until \`spica worker --task-queue ${taskQueue}\`${taskQueue === DEFAULT_TASK_QUEUE ? ' or `spica server` (a worker beside the server)' : ''} runs\n`);
    }
    // A schedule is not a run: the workers polling when it fires run it. Say now if some are of another build.
    if (pollers.foreign.length > 0) {
      io.stderr(`warning: task queue '${taskQueue}' is also polled by worker(s) of another Spica build: ${foreignList(pollers.foreign)}; scheduled runs they take are not this checkout's answer\n`);
    }
  });
  io.stdout(`${scheduleId}\n`);
  return 0;
}

async function listSchedules(s: ManagementSession): Promise<ScheduleView[]> {
  const views: ScheduleView[] = [];
  for await (const summary of s.client.schedule.list()) if (isSweepSchedule(summary)) views.push(scheduleView(summary));
  return views.sort((a, b) => a.scheduleId.localeCompare(b.scheduleId));
}

async function list(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: { ...CONNECTION, json: { type: 'boolean', default: false } }, allowPositionals: true });
  if (positionals.length > 0) throw new InputError(`unexpected argument '${positionals[0]}'`);
  const views = await withManagementSession(values, 'schedule list', listSchedules);
  io.stdout(values.json ? `${JSON.stringify({ schedules: views })}\n` : formatScheduleList(views));
  return 0;
}

async function remove(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: CONNECTION, allowPositionals: true });
  const scheduleId = onlyOneId(positionals, 'delete');
  await withManagementSession(values, `schedule delete ${scheduleId}`, async (s) => {
    try {
      await s.client.schedule.getHandle(scheduleId).delete();
    } catch (err) {
      throw scheduleInputError(err, scheduleId);
    }
  });
  io.stderr(`deleted schedule ${scheduleId}\n`);
  return 0;
}

const TRIGGER_WAIT_MS = 10_000;

async function trigger(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: CONNECTION, allowPositionals: true });
  const scheduleId = onlyOneId(positionals, 'trigger');
  const workflowId = await withManagementSession(values, `schedule trigger ${scheduleId}`, async (s) => {
    const handle = s.client.schedule.getHandle(scheduleId);
    try {
      const before = new Set((await handle.describe()).info.recentActions.map((a) => a.action.workflow.workflowId));
      // ALLOW_ALL: an explicit trigger runs even if a scheduled run is still going.
      await handle.trigger('ALLOW_ALL');
      // The schedule workflow records the action asynchronously; wait briefly to name the new run.
      const deadline = Date.now() + TRIGGER_WAIT_MS;
      while (Date.now() < deadline) {
        const fresh = (await handle.describe()).info.recentActions.map((a) => a.action.workflow.workflowId).filter((id) => !before.has(id));
        if (fresh.length > 0) return fresh[fresh.length - 1];
        await new Promise((r) => setTimeout(r, 200));
      }
      return null;
    } catch (err) {
      throw scheduleInputError(err, scheduleId);
    }
  });
  if (workflowId === null) {
    io.stderr(`triggered schedule ${scheduleId}; the run did not show up within ${TRIGGER_WAIT_MS / 1000} s (\`spica list\` will show it)\n`);
    return 0;
  }
  io.stderr(`triggered schedule ${scheduleId}\n`);
  io.stdout(`${workflowId}\n`);
  return 0;
}

const SUBCOMMANDS: Record<string, (argv: string[], io: CommandIo) => Promise<number>> = { create, list, delete: remove, trigger };

export const command: Command = {
  name: 'schedule',
  summary: 'recurring re-sweeps as Temporal Schedules (create, list, delete, trigger)',
  usage,
  async run(argv, io) {
    const [sub, ...rest] = argv;
    const run = sub === undefined ? undefined : SUBCOMMANDS[sub];
    if (!run) throw new InputError(`${sub === undefined ? 'missing' : `unknown`} subcommand${sub ? ` '${sub}'` : ''}; use create, list, delete or trigger (see \`spica schedule --help\`)`);
    return run(rest, io);
  },
};
