// The pure parts of the sweep-management commands: visibility queries, resume ids, schedule options,
// result rendering. No Temporal server.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { main } from '../../src/cli/main.js';
import { parseConfigText } from '../../src/config/load.js';
import { listStatusValue, sweepListQuery, visibilityLiteral } from '../../src/cli/sweeps/list-query.js';
import { newestFirst, type SweepRunSummary } from '../../src/cli/sweeps/sweep-listing.js';
import { isResumable } from '../../src/cli/sweeps/sweep-outcome.js';
import { resumeBaseId, resumeWorkflowId } from '../../src/cli/sweeps/sweep-resume.js';
import { checkCron, checkTimezone, defaultScheduleId, SCHEDULE_CATCHUP_WINDOW, sweepScheduleOptions } from '../../src/cli/sweeps/sweep-schedule.js';
import { formatSweepResult, viewIds } from '../../src/cli/temporal/sweep-summary.js';
import { formatSweepStatus, type SweepStatusReport } from '../../src/cli/sweeps/sweep-status.js';
import { makeSweepResult } from '../results/fixture.js';
import { TINY_CONFIG_YAML } from '../temporal/harness.js';


describe('list query', () => {
  it('selects sweep parents and ANDs the filters, quoting values', () => {
    expect(sweepListQuery({})).toBe(`WorkflowType = 'sweep'`);
    expect(sweepListQuery({ model: "o'brien/x", hardware: 'h100_sxm', goal: 'pareto', status: 'Timed_Out' })).toBe(
      `WorkflowType = 'sweep' AND SpicaModel = 'o\\'brien/x' AND SpicaHardware = 'h100_sxm' AND SpicaGoal = 'pareto' AND ExecutionStatus = 'TimedOut'`,
    );
    expect(visibilityLiteral('a\\b')).toBe(`'a\\\\b'`);
  });

  it('rejects an unknown status with the accepted spellings', () => {
    expect(listStatusValue('cancelled')).toBe('Canceled');
    expect(() => listStatusValue('done')).toThrow(InputError);
    expect(() => listStatusValue('done')).toThrow(/running, completed, failed, canceled, terminated, timed_out/);
  });

  it('orders newest start first', () => {
    const row = (workflowId: string, startTime: string): SweepRunSummary => ({
      workflowId, runId: 'r', status: 'COMPLETED', startTime, closeTime: null, taskQueue: 'q', model: null, hardware: null, goal: null,
    });
    const rows = [row('a', '2026-01-01T00:00:00.000Z'), row('c', '2026-03-01T00:00:00.000Z'), row('b', '2026-02-01T00:00:00.000Z')];
    expect(newestFirst(rows).map((r) => r.workflowId)).toEqual(['c', 'b', 'a']);
  });
});

describe('resume ids', () => {
  it('numbers on from the original id', () => {
    expect(resumeBaseId('spica-abc-5')).toBe('spica-abc-5');
    expect(resumeBaseId('spica-abc-5-resume-3')).toBe('spica-abc-5');
    expect(resumeWorkflowId(resumeBaseId('x-resume-1'), 2)).toBe('x-resume-2');
  });

  it('only failed, terminated, timed-out and cancelled runs are resumable', () => {
    expect(['FAILED', 'TERMINATED', 'TIMED_OUT', 'CANCELLED'].every(isResumable)).toBe(true);
    expect(['RUNNING', 'COMPLETED', 'CONTINUED_AS_NEW'].some(isResumable)).toBe(false);
  });
});

describe('schedule options', () => {
  const config = parseConfigText(TINY_CONFIG_YAML);

  it('start the sweep workflow with the config, SKIP overlap, explicit catch-up window, id prefix = schedule id', () => {
    const o = sweepScheduleOptions({ scheduleId: 'nightly', cron: '0 2 * * *', timezone: 'Europe/Berlin', config, taskQueue: 'q', registeredSearchAttributes: ['SpicaModel', 'SpicaGoal'] });
    expect(o.spec).toEqual({ cronExpressions: ['0 2 * * *'], timezone: 'Europe/Berlin' });
    expect(o.policies).toEqual({ overlap: 'SKIP', catchupWindow: SCHEDULE_CATCHUP_WINDOW });
    expect(o.action).toMatchObject({ type: 'startWorkflow', workflowType: 'sweep', workflowId: 'nightly', taskQueue: 'q', args: [config] });
    // Only registered attributes are set (an unregistered one would make the start fail).
    const pairs = (o.action as { typedSearchAttributes: { key: { name: string }; value: unknown }[] }).typedSearchAttributes;
    expect(pairs.map((p) => [p.key.name, p.value])).toEqual([['SpicaModel', 'meta-llama/Llama-3.1-8B-Instruct'], ['SpicaGoal', 'throughput']]);
    expect(o.memo?.spica).toMatchObject({ cron: '0 2 * * *', timezone: 'Europe/Berlin', model: 'meta-llama/Llama-3.1-8B-Instruct', seed: 5 });
  });

  it('derives a stable default id and checks cron and timezone before any server call', () => {
    expect(defaultScheduleId(config)).toMatch(/^spica-schedule-[0-9a-f]{12}-5$/);
    expect(defaultScheduleId(parseConfigText(TINY_CONFIG_YAML))).toBe(defaultScheduleId(config));
    expect(checkCron(' 0 2 * * * ')).toBe('0 2 * * *');
    expect(checkCron('@daily')).toBe('@daily');
    expect(() => checkCron('0 2 *')).toThrow(/3 fields/);
    expect(() => checkCron('')).toThrow(InputError);
    expect(checkTimezone('UTC')).toBe('UTC');
    expect(() => checkTimezone('Mars/Olympus')).toThrow(InputError);
  });
});

describe('result rendering', () => {
  it('ranked view: table rows in top_n order, counts line', () => {
    const r = makeSweepResult('single');
    const text = formatSweepResult(r, 3);
    const ids = viewIds(r);
    expect(ids.kind).toBe('ranked');
    const shown = text.split('\n').filter((l) => /^\s+\d+\s+candidate-/.test(l)).map((l) => /candidate-\d{6}/.exec(l)![0]);
    expect(shown).toEqual(ids.ids.slice(0, 3));
    expect(text).toContain(`trials: ${r.counts.evaluated} — ${r.counts.feasible} feasible`);
    if (ids.ids.length > 3) expect(text).toContain(`… ${ids.ids.length - 3} more`);
  });

  it('pareto view lists the whole front', () => {
    const r = makeSweepResult('pareto');
    const text = formatSweepResult(r, 1000);
    const front = viewIds(r);
    expect(front.kind).toBe('pareto');
    expect(text).toContain(`Pareto front (${front.ids.length})`);
    for (const id of front.ids) expect(text).toContain(id);
  });

  it('a result without feasible candidates says so', () => {
    const r = makeSweepResult('single');
    const none = { ...r, views: { top_n: [] } };
    expect(formatSweepResult(none)).toContain('no feasible candidate');
  });
});

describe('status rendering', () => {
  it('shows the note when no worker can answer the progress query', () => {
    const report: SweepStatusReport = {
      workflowId: 'w', runId: 'r', status: 'COMPLETED', startTime: '2026-01-01T00:00:00.000Z', closeTime: '2026-01-01T00:01:00.000Z', taskQueue: 'q',
      model: 'm', hardware: 'h', goal: 'throughput', historyLength: 12, progress: null, progress_note: 'no worker polls task queue',
    };
    expect(formatSweepStatus(report)).toContain('progress: no worker polls task queue');
  });
});

describe('no server', () => {
  it('every management command exits 3 with the hint to start a server', async () => {
    const commands = [['list'], ['status', 'x'], ['result', 'x'], ['resume', 'x', '--detach'], ['schedule', 'list']];
    // In parallel: each waits out the connect timeout.
    const outcomes = await Promise.all(
      commands.map(async (args) => {
        let err = '';
        const code = await main([...args, '--address', '127.0.0.1:1'], { stdout: () => undefined, stderr: (s) => void (err += s), isTty: false });
        return { args: args.join(' '), code, err };
      }),
    );
    for (const o of outcomes) {
      expect(o.code, o.args).toBe(3);
      expect(o.err, o.args).toContain('spica server');
    }
  });
});
