// Nightly (or any cron) re-sweeps as Temporal Schedules. Each action starts the ordinary `sweep`
// workflow with the validated config object, so scheduled runs are listed, queried and resumed
// like any sweep, and their replays come from the persistent cache when nothing changed.
import type { ScheduleOptions, ScheduleSummary, ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { InputError } from '../../errors.js';
import type { SmartSearchConfig } from '../../config/schema.js';
import { SPICA_GOAL, SPICA_HARDWARE, SPICA_MODEL } from '../../../workflows/search-attributes.js';
import { configHash12 } from '../temporal/workflow-id.js';

/**
 * How late a missed action (server down at 02:00) may still run. Set explicitly: the SDK's doc
 * comment and its @default disagree (1 minute vs 1 year), and a sweep started a day late is noise.
 */
export const SCHEDULE_CATCHUP_WINDOW = '1 hour';

/** Memo key holding what the schedule was created from (describe returns cron as calendars). */
export const SCHEDULE_MEMO_KEY = 'spica';

export interface ScheduleMemo {
  cron: string;
  timezone: string | null;
  config_hash: string;
  model: string;
  hardware: string;
  goal: string;
  seed: number;
}

export interface SweepScheduleRequest {
  scheduleId: string;
  cron: string;
  timezone?: string;
  config: SmartSearchConfig;
  taskQueue: string;
  /** Sweep search attributes registered on the server; only these are set on scheduled runs. */
  registeredSearchAttributes: string[];
}

export function defaultScheduleId(config: SmartSearchConfig): string {
  return `spica-schedule-${configHash12(config)}-${config.sweep.seed}`;
}

/** An IANA zone name Node knows (the server would reject an unknown one less clearly). */
export function checkTimezone(tz: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw new InputError(`unknown --timezone '${tz}'; use an IANA name such as UTC or Europe/Berlin`);
  }
  return tz;
}

/** Cheap shape check; the server parses the expression itself (errors there also exit 2). */
export function checkCron(expr: string): string {
  const trimmed = expr.trim();
  if (trimmed === '') throw new InputError('--cron is required, e.g. --cron "0 2 * * *" (02:00 every day)');
  if (!trimmed.startsWith('@')) {
    const fields = trimmed.split(/\s+/).length;
    if (fields < 5 || fields > 7) throw new InputError(`--cron '${expr}' has ${fields} fields; expected 5 (minute hour day-of-month month day-of-week), e.g. "0 2 * * *"`);
  }
  return trimmed;
}

function labelPairs(config: SmartSearchConfig, registered: string[]): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [
    { key: SPICA_MODEL, value: config.search_space.model_name },
    { key: SPICA_HARDWARE, value: config.search_space.hardware_sku },
    { key: SPICA_GOAL, value: config.goal.target },
  ];
  return pairs.filter((p) => registered.includes(p.key.name));
}

export function sweepScheduleOptions(req: SweepScheduleRequest): ScheduleOptions<ScheduleOptionsStartWorkflowAction<(input: SmartSearchConfig) => Promise<unknown>>> {
  const memo: ScheduleMemo = {
    cron: req.cron,
    timezone: req.timezone ?? null,
    config_hash: configHash12(req.config),
    model: req.config.search_space.model_name,
    hardware: req.config.search_space.hardware_sku,
    goal: req.config.goal.target,
    seed: req.config.sweep.seed,
  };
  const pairs = labelPairs(req.config, req.registeredSearchAttributes);
  return {
    scheduleId: req.scheduleId,
    spec: { cronExpressions: [req.cron], ...(req.timezone ? { timezone: req.timezone } : {}) },
    action: {
      type: 'startWorkflow',
      workflowType: 'sweep',
      args: [req.config],
      taskQueue: req.taskQueue,
      // The server appends the scheduled time: `<scheduleId>-<RFC3339 time>`.
      workflowId: req.scheduleId,
      ...(pairs.length > 0 ? { typedSearchAttributes: pairs } : {}),
    },
    policies: { overlap: 'SKIP', catchupWindow: SCHEDULE_CATCHUP_WINDOW },
    memo: { [SCHEDULE_MEMO_KEY]: memo },
  };
}

export interface ScheduleView {
  scheduleId: string;
  workflowType: string | null;
  cron: string | null;
  timezone: string | null;
  paused: boolean;
  model: string | null;
  hardware: string | null;
  goal: string | null;
  next_runs: string[];
  recent_runs: { workflowId: string; takenAt: string }[];
}

export function isSweepSchedule(s: ScheduleSummary): boolean {
  return s.action?.workflowType === 'sweep';
}

export function scheduleView(s: ScheduleSummary): ScheduleView {
  const memo = (s.memo?.[SCHEDULE_MEMO_KEY] ?? null) as Partial<ScheduleMemo> | null;
  return {
    scheduleId: s.scheduleId,
    workflowType: s.action?.workflowType ?? null,
    cron: memo?.cron ?? null,
    timezone: memo?.timezone ?? null,
    paused: s.state.paused,
    model: memo?.model ?? null,
    hardware: memo?.hardware ?? null,
    goal: memo?.goal ?? null,
    next_runs: s.info.nextActionTimes.map((d) => d.toISOString()),
    recent_runs: s.info.recentActions.map((a) => ({ workflowId: a.action.workflow.workflowId, takenAt: a.takenAt.toISOString() })),
  };
}

export function formatScheduleList(views: ScheduleView[]): string {
  if (views.length === 0) return 'no sweep schedules\n';
  const lines: string[] = [];
  for (const v of views) {
    lines.push(`${v.scheduleId}${v.paused ? ' (paused)' : ''}: cron "${v.cron ?? '?'}"${v.timezone ? ` ${v.timezone}` : ''}; ${v.model ?? '?'} on ${v.hardware ?? '?'}, goal ${v.goal ?? '?'}`);
    lines.push(`  next: ${v.next_runs.slice(0, 3).join(', ') || '-'}`);
    const last = v.recent_runs[v.recent_runs.length - 1];
    lines.push(`  last run: ${last ? `${last.workflowId} at ${last.takenAt}` : '-'} (${v.recent_runs.length} recent)`);
  }
  return `${lines.join('\n')}\n`;
}
