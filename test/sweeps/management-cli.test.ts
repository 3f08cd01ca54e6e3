// `spica list | status | result | resume | schedule` against the shared dev server with real Spica
// workers: a tiny completed sweep is listed, described, fetched and written out; schedules run the
// sweep workflow; a sweep terminated after some trials finished is resumed without replaying them
// and ends with the SweepResult of the uninterrupted run (sweep id and cache-hit counts aside).
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { replayPool } from '../../activities/replay-pool.js';
import { main } from '../../src/cli/main.js';
import { createSpicaWorker, type SpicaWorker } from '../../src/cli/temporal/worker.js';
import { parseConfigText } from '../../src/config/load.js';
import { canonicalJson } from '../../src/config/canonical-json.js';
import type { SweepResult } from '../../src/search/sweepResult.js';
import { SPICA_MODEL } from '../../workflows/search-attributes.js';
import { progressQuery } from '../../workflows/messages.js';
import { isStoredResult, splitOutcome, type SweepOutcome } from '../../workflows/sweep-types.js';
import { branchHistory, captureIo, connectTestTemporal, neutralized, replayWork, TINY_CONFIG_YAML, uniqueTaskQueue, writeTempConfig, type TestTemporal } from '../temporal/harness.js';

const config = parseConfigText(TINY_CONFIG_YAML);
let t: TestTemporal;
let spica: SpicaWorker;
let running: Promise<void>;
let taskQueue: string;
let completedId: string;
let reference: SweepResult;

function freshCacheDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'spica-sweeps-cache-'));
  process.env.SPICA_CACHE_DIR = dir;
  return dir;
}

/** Entries in the persistent replay cache (one JSON file per finished replay). */
function cacheEntries(dir: string): number {
  if (!existsSync(dir)) return 0;
  let n = 0;
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) n += cacheEntries(p);
    else if (name.endsWith('.json')) n += 1;
  }
  return n;
}

function inline(o: SweepOutcome): SweepResult {
  const { outcome } = splitOutcome(o);
  if (isStoredResult(outcome)) throw new Error('expected an inline SweepResult');
  return outcome;
}

async function spica_(args: string[]) {
  const { io, out } = captureIo();
  const code = await main([...args, '--address', t.address, '--namespace', t.namespace], io);
  return { code, ...out };
}

beforeAll(async () => {
  t = await connectTestTemporal();
  freshCacheDir();
  taskQueue = uniqueTaskQueue('sweeps');
  spica = await createSpicaWorker({ address: t.address, namespace: t.namespace, taskQueue });
  running = spica.worker.run();
  completedId = `done-${taskQueue}`;
  reference = inline(await t.client.workflow.execute('sweep', { workflowId: completedId, taskQueue, args: [config] }));
});

afterAll(async () => {
  spica?.worker.shutdown();
  await running;
  await spica?.close();
  await t?.connection.close();
});

afterEach(() => {
  delete process.env.SPICA_TEST_HOOKS;
  delete process.env.SPICA_TEST_HANG_MATCH;
});

describe('list, status, result on a completed sweep', () => {
  it('list finds it by its search attributes and status, newest first', async () => {
    const filters = ['--model', 'meta-llama/Llama-3.1-8B-Instruct', '--hardware', 'h100_sxm', '--goal', 'throughput'];
    const r = await spica_(['list', ...filters, '--status', 'completed', '--limit', '1000', '--json']);
    expect(r.code).toBe(0);
    const { sweeps } = JSON.parse(r.stdout) as { sweeps: { workflowId: string; status: string; model: string; hardware: string; goal: string; startTime: string; closeTime: string | null }[] };
    const mine = sweeps.find((s) => s.workflowId === completedId);
    expect(mine).toMatchObject({ status: 'COMPLETED', model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'h100_sxm', goal: 'throughput' });
    expect(mine!.closeTime).not.toBeNull();
    expect(sweeps.every((s) => s.status === 'COMPLETED' && s.model === 'meta-llama/Llama-3.1-8B-Instruct')).toBe(true);
    expect(sweeps.map((s) => s.startTime)).toEqual([...sweeps.map((s) => s.startTime)].sort().reverse());
    expect(sweeps.some((s) => s.workflowId.includes('/branch-'))).toBe(false);

    const runningOnly = await spica_(['list', '--status', 'running', '--limit', '1000', '--json']);
    expect((JSON.parse(runningOnly.stdout) as { sweeps: { workflowId: string }[] }).sweeps.map((s) => s.workflowId)).not.toContain(completedId);
    const otherGoal = await spica_(['list', '--goal', 'pareto', '--limit', '1000', '--json']);
    expect(otherGoal.stdout).not.toContain(completedId);

    const human = await spica_(['list', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--limit', '1000']);
    expect(human.stdout).toMatch(new RegExp(`${completedId}\\s+COMPLETED`));
    expect((await spica_(['list', '--status', 'finished'])).code).toBe(2);
  });

  it('status shows the run and, with a worker polling, its per-branch progress', async () => {
    const r = await spica_(['status', completedId, '--json']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s).toMatchObject({ workflowId: completedId, status: 'COMPLETED', taskQueue, model: 'meta-llama/Llama-3.1-8B-Instruct', progress_note: null });
    expect(s.progress.phase).toBe('done');
    expect(s.progress.branches[0]).toMatchObject({ deployment_mode: 'agg', status: 'done', trials_done: reference.counts.evaluated, feasible: reference.counts.feasible });
    const human = await spica_(['status', completedId]);
    expect(human.stdout).toContain(`agg [done] round 2/2, trials ${reference.counts.evaluated}/4`);

    expect((await spica_(['status', `no-such-${taskQueue}`])).code).toBe(2);
    const child = await spica_(['status', `${completedId}/branch-agg`]);
    expect(child.code).toBe(2);
    expect(child.stderr).toContain("'branchStudy' workflow, not a sweep");
  });

  it('status of a completed run whose worker is gone: the final progress from its result, no query', async () => {
    const gone = uniqueTaskQueue('sweeps-gone');
    const id = `done-${gone}`;
    const worker = await createSpicaWorker({ address: t.address, namespace: t.namespace, taskQueue: gone });
    try {
      await worker.worker.runUntil(t.client.workflow.execute('sweep', { workflowId: id, taskQueue: gone, args: [config] }));
    } finally {
      await worker.close();
    }
    // The server still lists the stopped worker's pollers: a progress query would be tried and fail.
    const s = JSON.parse((await spica_(['status', id, '--json'])).stdout);
    expect(s).toMatchObject({ workflowId: id, status: 'COMPLETED', progress_note: null });
    expect(s.progress.phase).toBe('done');
    expect(s.progress.branches[0]).toMatchObject({ deployment_mode: 'agg', status: 'done', trials_done: reference.counts.evaluated });
  });

  it('result prints the SweepResult (--json), the ranked table, and writes the three files with --out', async () => {
    const json = await spica_(['result', completedId, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(reference);

    const human = await spica_(['result', completedId]);
    expect(human.code).toBe(0);
    const bestId = (reference.views as { top_n: string[] }).top_n[0];
    expect(human.stdout).toMatch(new RegExp(`\\n\\s+1\\s+${bestId}\\s+agg\\s+vllm`));
    expect(human.stdout).toContain(`trials: ${reference.counts.evaluated} — ${reference.counts.feasible} feasible`);

    const out = mkdtempSync(path.join(os.tmpdir(), 'spica-result-out-'));
    const files = await spica_(['result', completedId, '--out', out]);
    expect(files.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['candidates.csv', 'report.html', 'result.json']);
    expect(JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8'))).toEqual(reference);
    expect(readFileSync(path.join(out, 'candidates.csv'), 'utf8').trim().split('\n')).toHaveLength(reference.candidates.length + 1);
  });

  it('result follows a stored-result reference (a SweepResult too big for a payload)', async () => {
    process.env.SPICA_RESULT_INLINE_LIMIT_BYTES = '1';
    process.env.SPICA_RESULT_STORE = mkdtempSync(path.join(os.tmpdir(), 'spica-result-store-'));
    const id = `stored-${taskQueue}`;
    try {
      const outcome = await t.client.workflow.execute('sweep', { workflowId: id, taskQueue, args: [config] });
      expect(isStoredResult(outcome)).toBe(true);
    } finally {
      delete process.env.SPICA_RESULT_INLINE_LIMIT_BYTES;
      delete process.env.SPICA_RESULT_STORE;
    }
    const r = await spica_(['result', id, '--json']);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout) as SweepResult;
    expect(result.sweep_id).toBe(id);
    expect(neutralized(result)).toEqual(neutralized(reference));
  });

  it('a run nobody works on: status says why there is no progress; result and resume refuse (2), then result fails (3) once terminated', async () => {
    const idle = uniqueTaskQueue('idle');
    const id = `idle-${idle}`;
    const handle = await t.client.workflow.start('sweep', { workflowId: id, taskQueue: idle, args: [config] });
    const s = JSON.parse((await spica_(['status', id, '--json'])).stdout);
    expect(s.status).toBe('RUNNING');
    expect(s.progress).toBeNull();
    expect(s.progress_note).toContain(`no worker polls task queue '${idle}'`);
    const early = await spica_(['result', id]);
    expect(early.code).toBe(2);
    expect(early.stderr).toContain('still running');
    const resumeRunning = await spica_(['resume', id, '--detach']);
    expect(resumeRunning.code).toBe(2);
    expect(resumeRunning.stderr).toContain('still running');
    expect((await spica_(['resume', completedId, '--detach'])).code).toBe(2);

    await handle.terminate('test');
    const late = await spica_(['result', id]);
    expect(late.code).toBe(3);
    expect(late.stderr).toContain('TERMINATED');
    expect(late.stderr).toContain(`spica resume ${id}`);
  });
});

describe('schedule', () => {
  it('create (validated), list, trigger → a sweep run with search attributes, delete', async () => {
    const scheduleId = `sched-${taskQueue}`;
    const file = writeTempConfig(TINY_CONFIG_YAML);
    const bad = writeTempConfig(TINY_CONFIG_YAML.replace('gpu_budget: 2', 'gpu_budget: -3'));
    expect((await spica_(['schedule', 'create', bad, '--cron', '0 2 * * *', '--id', `${scheduleId}-bad`])).code).toBe(2);
    expect((await spica_(['schedule', 'create', file, '--cron', '0 2 *', '--id', `${scheduleId}-bad`])).code).toBe(2);
    expect((await spica_(['schedule', 'create', file, '--cron', '99 2 * * *', '--id', `${scheduleId}-bad`])).code).toBe(2);

    const created = await spica_(['schedule', 'create', file, '--cron', '0 2 * * *', '--id', scheduleId, '--timezone', 'UTC', '--task-queue', taskQueue]);
    expect(created.stderr).toBe(`created schedule ${scheduleId} (cron "0 2 * * *" UTC); next run ${created.stderr.match(/next run (\S+)/)?.[1]}\n`);
    expect(created.code).toBe(0);
    expect(created.stdout).toBe(`${scheduleId}\n`);
    expect((await spica_(['schedule', 'create', file, '--cron', '0 2 * * *', '--id', scheduleId])).code).toBe(2);

    const description = await t.client.schedule.getHandle(scheduleId).describe();
    expect(description.policies).toMatchObject({ overlap: 'SKIP', catchupWindow: 3_600_000 });

    const listed = JSON.parse((await spica_(['schedule', 'list', '--json'])).stdout) as { schedules: { scheduleId: string; cron: string; next_runs: string[] }[] };
    const mine = listed.schedules.find((x) => x.scheduleId === scheduleId);
    expect(mine).toMatchObject({ cron: '0 2 * * *' });
    expect(new Date(mine!.next_runs[0]).getUTCHours()).toBe(2);

    const triggered = await spica_(['schedule', 'trigger', scheduleId]);
    expect(triggered.code).toBe(0);
    const runId = triggered.stdout.trim();
    expect(runId.startsWith(`${scheduleId}-`)).toBe(true);
    // Same config, same cache directory as the reference sweep: answered by the cache.
    const result = inline(await t.client.workflow.getHandle(runId).result());
    expect(neutralized(result)).toEqual(neutralized(reference));
    expect((await t.client.workflow.getHandle(runId).describe()).typedSearchAttributes.get(SPICA_MODEL)).toBe('meta-llama/Llama-3.1-8B-Instruct');

    expect((await spica_(['schedule', 'delete', scheduleId])).code).toBe(0);
    expect((await spica_(['schedule', 'list'])).stdout).not.toContain(scheduleId);
    expect((await spica_(['schedule', 'delete', scheduleId])).code).toBe(2);
    expect((await spica_(['schedule', 'trigger', scheduleId])).code).toBe(2);
    expect((await spica_(['schedule', 'frobnicate'])).code).toBe(2);
  });
});

describe('resume', () => {
  it('a terminated sweep finishes in <id>-resume-1 without replaying finished trials, with the uninterrupted result', async () => {
    const cache = freshCacheDir();
    const queue = uniqueTaskQueue('resume');
    const id = `killed-${queue}-run`; // never ends in -resume-<digits> (resumeBaseId would strip it)
    // Round 2's first candidate hangs, so the run is caught mid-way with round 1 and the other round-2 replay done.
    const victim = reference.candidates.find((c) => c.round === 2)!;
    const replayable = reference.candidates.filter((c) => c.metrics !== null).length;
    expect(victim.metrics).not.toBeNull();
    process.env.SPICA_TEST_HOOKS = '1';
    process.env.SPICA_TEST_HANG_MATCH = canonicalJson(victim.config);
    // The run's own worker, as `spica sweep` marks it: gone by the resume, so the resume runs its own.
    const first = await createSpicaWorker({ address: t.address, namespace: t.namespace, taskQueue: queue, sweepWorker: true });
    try {
      await first.worker.runUntil(async () => {
        const handle = await t.client.workflow.start('sweep', { workflowId: id, taskQueue: queue, args: [config] });
        await expect.poll(async () => (await handle.query(progressQuery)).branches[0]?.trials_done ?? 0, { timeout: 30_000, interval: 200 }).toBeGreaterThanOrEqual(2);
        await expect.poll(() => cacheEntries(cache), { timeout: 30_000, interval: 100 }).toBe(replayable - 1);
        await handle.terminate('fault injection: worker lost mid-sweep');
      });
    } finally {
      await first.close();
    }
    delete process.env.SPICA_TEST_HOOKS;
    delete process.env.SPICA_TEST_HANG_MATCH;
    const finishedBefore = cacheEntries(cache);
    expect(finishedBefore).toBe(replayable - 1);
    expect((await t.client.workflow.getHandle(id).describe()).status.name).toBe('TERMINATED');
    const replaysBefore = replayPool().stats().completed;

    // No --detach: the command runs its own worker on the old run's task queue, like `spica sweep`.
    const r = await spica_(['resume', id, '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`resuming TERMINATED sweep ${id}`);
    expect(r.stderr).toContain(`workflow id: ${id}-resume-1`);
    const resumed = JSON.parse(r.stdout) as SweepResult;
    expect(resumed.sweep_id).toBe(`${id}-resume-1`);
    expect(neutralized(resumed)).toEqual(neutralized(reference));
    // Only the trial the old run had not finished was replayed; the rest came from the cache.
    expect(replayPool().stats().completed - replaysBefore).toBe(replayable - finishedBefore);
    expect(resumed.counts.cache_hits - reference.counts.cache_hits).toBe(finishedBefore);
    expect(r.stderr).toContain(`${resumed.counts.cache_hits} of ${resumed.counts.evaluated} trials were served from the persistent cache`);
    expect(cacheEntries(cache)).toBe(replayable);
    // Its worker is the one `spica sweep` runs when none polls: progress lines, and alone on the task
    // queue it replays each wave within the branch's workflow task (no replay activity scheduled).
    expect(r.stderr).toMatch(/progress: done · trials \d+\/\d+/);
    const branch = replayWork(await branchHistory(t, `${id}-resume-1`));
    expect(branch.scheduled).toEqual([]);
    expect(branch.local).toContain('replayWave');

    // The resumed run is a normal sweep; resuming the old one again numbers on.
    const again = await spica_(['resume', id, '--detach', '--json', '--task-queue', taskQueue]);
    expect(again.code).toBe(0);
    const { workflowId } = JSON.parse(again.stdout) as { workflowId: string };
    expect(workflowId).toBe(`${id}-resume-2`);
    expect(neutralized(inline(await t.client.workflow.getHandle(workflowId).result()))).toEqual(neutralized(reference));
  });
});
