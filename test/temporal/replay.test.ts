// Workflow-history replay: the recorded fixtures (scripts/record-histories.ts) must replay on the
// current workflow code. A change that alters the commands a recorded history expects (a renamed
// activity, reordered children, …) fails here instead of breaking running sweeps in production.
import { readFileSync } from 'node:fs';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { spicaReplayOptions } from '../../src/cli/temporal/worker.js';
import { HISTORY_FIXTURE_WORKFLOW_ID } from './history-fixture.js';
import { BRANCH_PATCH_LEVEL } from '../../workflows/branch-study.js';
import { PLAN_LOCAL_PATCH, REPORT_LOCAL_PATCH, SWEEP_PATCH_LEVEL } from '../../workflows/sweep.js';

type HistoryJson = { events: Record<string, any>[] };

function loadHistory(file: string): HistoryJson {
  return JSON.parse(readFileSync(new URL(`./histories/${file}`, import.meta.url), 'utf8')) as HistoryJson;
}

function eventsOfType(h: HistoryJson, type: string) {
  return h.events.filter((e) => e.eventType === type);
}

/** The activity type a local-activity marker records, or null. */
function markerActivityType(e: Record<string, any>): string | null {
  const m = e.markerRecordedEventAttributes;
  if (m?.markerName !== 'core_local_activity') return null;
  return (JSON.parse(Buffer.from(m.details.data.payloads[0].data, 'base64').toString('utf8')) as { activity_type: string }).activity_type;
}

function localActivityTypes(h: HistoryJson): string[] {
  return eventsOfType(h, 'EVENT_TYPE_MARKER_RECORDED').flatMap((e) => markerActivityType(e) ?? []);
}

describe('workflow history replay', () => {
  let options: Awaited<ReturnType<typeof spicaReplayOptions>>;
  beforeAll(async () => {
    options = await spicaReplayOptions();
  });

  it('replays the recorded sweep history on the current code (plan and the small report as local activities)', async () => {
    const history = loadHistory('sweep.json');
    // Sanity: the fixture really exercises plan (a local-activity marker under its patch) → one child
    // per branch → report (a local activity under REPORT_LOCAL_PATCH: four trials).
    expect(eventsOfType(history, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED')).toEqual([]);
    const markers = eventsOfType(history, 'EVENT_TYPE_MARKER_RECORDED').map((e) => e.markerRecordedEventAttributes.markerName);
    // One patch marker for both patches (SWEEP_PATCH_LEVEL).
    expect(markers).toEqual(['core_patch', 'core_local_activity', 'core_local_activity']);
    expect(localActivityTypes(history)).toEqual(['plan', 'reportSweep']);
    expect(eventsOfType(history, 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED')).toHaveLength(2);
    await expect(Worker.runReplayHistory(options, history, HISTORY_FIXTURE_WORKFLOW_ID)).resolves.toBeUndefined();
  });

  it('still replays a sweep history recorded when the report was always a regular activity (patched)', async () => {
    // Frozen copy of the recording before REPORT_LOCAL_PATCH.
    const history = loadHistory('sweep.pre-report-local.json');
    expect(eventsOfType(history, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED').map((e) => e.activityTaskScheduledEventAttributes.activityType.name)).toEqual([
      'reportSweep',
    ]);
    expect(localActivityTypes(history)).toEqual(['plan']);
    await expect(Worker.runReplayHistory(options, history, HISTORY_FIXTURE_WORKFLOW_ID)).resolves.toBeUndefined();
  });

  it('still replays a sweep history recorded when plan was a regular activity (patched)', async () => {
    // Frozen copy of the recording before PLAN_LOCAL_PATCH: in-flight sweeps of older workers keep replaying.
    const history = loadHistory('sweep.pre-plan-local.json');
    expect(eventsOfType(history, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED').map((e) => e.activityTaskScheduledEventAttributes.activityType.name)).toEqual([
      'plan',
      'reportSweep',
    ]);
    expect(eventsOfType(history, 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED')).toHaveLength(2);
    await expect(Worker.runReplayHistory(options, history, HISTORY_FIXTURE_WORKFLOW_ID)).resolves.toBeUndefined();
  });

  it('replays the recorded branchStudy child history (optimizer rebuilt from history, same asks)', async () => {
    const history = loadHistory('branchStudy-agg.json');
    const names = eventsOfType(history, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED').map((e) => e.activityTaskScheduledEventAttributes.activityType.name);
    expect(names).toContain('materializeCandidates');
    // One activity per candidate: the wave's two replays are two activities any worker may take.
    expect(names.filter((n) => n === 'replayCandidate')).toHaveLength(2);
    expect(names).not.toContain('replayWave');
    expect(eventsOfType(history, 'EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED').length).toBeGreaterThanOrEqual(1);
    await expect(Worker.runReplayHistory(options, history, `${HISTORY_FIXTURE_WORKFLOW_ID}/branch-agg`)).resolves.toBeUndefined();
  });

  it('records each optimizer ask as an askOptimizer local-activity marker (replays read it, no GP refit)', () => {
    const history = loadHistory('branchStudy-agg.json');
    const markers = eventsOfType(history, 'EVENT_TYPE_MARKER_RECORDED').map((e) => e.markerRecordedEventAttributes);
    expect(markers.map((m) => m.markerName)).toContain('core_patch');
    const asks = markers.filter(
      (m) =>
        m.markerName === 'core_local_activity' &&
        Buffer.from(m.details.data.payloads[0].data, 'base64').toString('utf8').includes('"activity_type":"askOptimizer"'),
    );
    expect(asks.length).toBeGreaterThanOrEqual(1);
  });

  it('still replays a branch history recorded before the ask became a local activity (patched)', async () => {
    // Frozen copy of the pre-patch recording: in-flight branches of older workers must keep replaying.
    const history = loadHistory('branchStudy-agg.pre-ask-activity.json');
    expect(eventsOfType(history, 'EVENT_TYPE_MARKER_RECORDED')).toHaveLength(0);
    await expect(Worker.runReplayHistory(options, history, `${HISTORY_FIXTURE_WORKFLOW_ID}/branch-agg`)).resolves.toBeUndefined();
  });

  it('still replays a branch history recorded when a wave was one replayWave activity (patched)', async () => {
    // Frozen copy of the recording before replayCandidate: in-flight branches of older workers keep replaying.
    const history = loadHistory('branchStudy-agg.pre-candidate-activity.json');
    const names = eventsOfType(history, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED').map((e) => e.activityTaskScheduledEventAttributes.activityType.name);
    expect(names).toContain('replayWave');
    await expect(Worker.runReplayHistory(options, history, `${HISTORY_FIXTURE_WORKFLOW_ID}/branch-agg`)).resolves.toBeUndefined();
  });

  it('replays a branch whose waves `spica sweep`\'s in-process worker replayed itself (WAVES_HERE_PATCH)', async () => {
    // Recorded alone on its task queue: each wave is a replayWave local activity after a waveHere
    // marker that said so, and each round's replays (~1 s) ended the task with the chunk write.
    const history = loadHistory('branchStudy-agg.waves-here.json');
    const names = eventsOfType(history, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED').map((e) => e.activityTaskScheduledEventAttributes.activityType.name);
    expect(names).toEqual(['storeTrialChunk', 'storeTrialChunk']);
    const local = localActivityTypes(history);
    expect(local.filter((n) => n === 'waveHere')).toHaveLength(2);
    expect(local.filter((n) => n === 'replayWave')).toHaveLength(2);
    await expect(Worker.runReplayHistory(options, history, `${HISTORY_FIXTURE_WORKFLOW_ID}/branch-agg`)).resolves.toBeUndefined();
  });

  it('a round between two waves is one local activity: chunk write, ask, materialize and recall (ONE_STEP_ROUNDS_PATCH)', async () => {
    // Before: ask, materialize (and recall once trials were stored) one after another, each its own
    // round trip to the SDK core. Since: one askAndMaterialize per ask, which also writes the chunk
    // the round before left, unless that chunk ended a held task (the regular storeTrialChunk).
    const before = loadHistory('branchStudy-agg.waves-here.pre-one-step-rounds.json');
    const since = loadHistory('branchStudy-agg.waves-here.json');
    expect(localActivityTypes(before)).toEqual([
      'askOptimizer', 'materializeCandidates', 'waveHere', 'replayWave',
      'askOptimizer', 'materializeCandidates', 'recallTrials', 'waveHere', 'replayWave',
    ]);
    expect(localActivityTypes(since)).toEqual(['askAndMaterialize', 'waveHere', 'replayWave', 'askAndMaterialize', 'waveHere', 'replayWave']);
    // The second round's ask recalled its candidates' keys from the first round's chunk.
    const second = eventsOfType(since, 'EVENT_TYPE_MARKER_RECORDED').filter((e) => markerActivityType(e) === 'askAndMaterialize')[1];
    const answer = JSON.parse(Buffer.from(second.markerRecordedEventAttributes.details.result.payloads[0].data, 'base64').toString('utf8')) as {
      candidates: unknown[] | null;
      recalled: unknown[] | null;
    };
    expect(answer.candidates).toHaveLength(2);
    expect(answer.recalled).toEqual([]);
    await expect(Worker.runReplayHistory(options, before, `${HISTORY_FIXTURE_WORKFLOW_ID}/branch-agg`)).resolves.toBeUndefined();
    await expect(Worker.runReplayHistory(options, since, `${HISTORY_FIXTURE_WORKFLOW_ID}/branch-agg`)).resolves.toBeUndefined();
  });

  it('a run records one patch marker for the patches its code knows (patch levels); histories from before replay patch by patch', async () => {
    const patchIds = (h: HistoryJson) =>
      eventsOfType(h, 'EVENT_TYPE_MARKER_RECORDED')
        .filter((e) => e.markerRecordedEventAttributes.markerName === 'core_patch')
        .map((e) => (JSON.parse(Buffer.from(e.markerRecordedEventAttributes.details['patch-data'].payloads[0].data, 'base64').toString('utf8')) as { id: string }).id);
    const upserts = (h: HistoryJson) => eventsOfType(h, 'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES').length;
    const branchBefore = loadHistory('branchStudy-agg.waves-here.pre-patch-level.json');
    const branchSince = loadHistory('branchStudy-agg.waves-here.json');
    expect(patchIds(branchBefore)).toHaveLength(10);
    expect(patchIds(branchSince)).toEqual([BRANCH_PATCH_LEVEL]);
    expect(upserts(branchSince)).toBe(1);
    expect(branchBefore.events.length - branchSince.events.length).toBe(18);
    const sweepBefore = loadHistory('sweep.pre-patch-level.json');
    const sweepSince = loadHistory('sweep.json');
    expect(patchIds(sweepBefore)).toEqual([PLAN_LOCAL_PATCH, REPORT_LOCAL_PATCH]);
    expect(patchIds(sweepSince)).toEqual([SWEEP_PATCH_LEVEL]);
    // Same work either way: the local activities of both recordings match.
    expect(localActivityTypes(branchSince)).toEqual(localActivityTypes(branchBefore));
    expect(localActivityTypes(sweepSince)).toEqual(localActivityTypes(sweepBefore));
    await expect(Worker.runReplayHistory(options, branchBefore, `${HISTORY_FIXTURE_WORKFLOW_ID}/branch-agg`)).resolves.toBeUndefined();
    await expect(Worker.runReplayHistory(options, sweepBefore, HISTORY_FIXTURE_WORKFLOW_ID)).resolves.toBeUndefined();
  });

  it('a branch replaying its waves here signals its parent only where its workflow task ends anyway (SIGNALS_AT_TASK_END_PATCH)', async () => {
    const signals = (h: HistoryJson) => eventsOfType(h, 'EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED').length;
    // Before: a signal when the branch started, one per round, one when it finished (all three left
    // with task ends, each waking the parent). Since: one at the first round's task end, and the
    // finished branch's last trials travel in its result.
    const before = loadHistory('branchStudy-agg.waves-here.pre-task-end-signals.json');
    const since = loadHistory('branchStudy-agg.waves-here.json');
    expect(signals(before)).toBe(3);
    expect(signals(since)).toBe(1);
    const completed = eventsOfType(since, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED')[0].workflowExecutionCompletedEventAttributes;
    const result = JSON.parse(Buffer.from(completed.result.payloads[0].data, 'base64').toString('utf8')) as { views?: { n: number }[] };
    expect(result.views?.map((v) => v.n)).toEqual([3, 4]); // round 2's trials: no signal carried them
    await expect(Worker.runReplayHistory(options, before, `${HISTORY_FIXTURE_WORKFLOW_ID}/branch-agg`)).resolves.toBeUndefined();
  });

  it('the recorded waveHere answer decides the path: a "no" where the wave was replayed here is a determinism violation', async () => {
    const history = loadHistory('branchStudy-agg.waves-here.json');
    const answer = eventsOfType(history, 'EVENT_TYPE_MARKER_RECORDED').find((e) => markerActivityType(e) === 'waveHere')!;
    const result = answer.markerRecordedEventAttributes.details.result.payloads[0];
    const said = JSON.parse(Buffer.from(result.data, 'base64').toString('utf8')) as { here: boolean };
    expect(said.here).toBe(true);
    result.data = Buffer.from(JSON.stringify({ here: false, other_workers: 1 })).toString('base64');
    // The code now schedules replayCandidate activities where the history holds a replayWave marker.
    await expect(Worker.runReplayHistory(options, history, `${HISTORY_FIXTURE_WORKFLOW_ID}/branch-agg`)).rejects.toBeInstanceOf(
      DeterminismViolationError,
    );
  });

  it('fails with a determinism violation when the branch would replay a different wave', async () => {
    const history = loadHistory('branchStudy-agg.json');
    const wave = eventsOfType(history, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED').find(
      (e) => e.activityTaskScheduledEventAttributes.activityType.name === 'replayCandidate',
    )!;
    wave.activityTaskScheduledEventAttributes.activityType.name = 'replayCandidateV0';
    await expect(Worker.runReplayHistory(options, history, `${HISTORY_FIXTURE_WORKFLOW_ID}/branch-agg`)).rejects.toBeInstanceOf(
      DeterminismViolationError,
    );
  });

  it('fails with a determinism violation when the code schedules a different activity', async () => {
    const history = loadHistory('sweep.pre-plan-local.json');
    const scheduled = eventsOfType(history, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED')[0];
    scheduled.activityTaskScheduledEventAttributes.activityType.name = 'planV0';
    await expect(Worker.runReplayHistory(options, history, HISTORY_FIXTURE_WORKFLOW_ID)).rejects.toBeInstanceOf(
      DeterminismViolationError,
    );
  });

  it('fails with a determinism violation when branch children start in another order', async () => {
    const history = loadHistory('sweep.json');
    const [first, second] = eventsOfType(history, 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED').map(
      (e) => e.startChildWorkflowExecutionInitiatedEventAttributes,
    );
    [first.workflowId, second.workflowId] = [second.workflowId, first.workflowId];
    await expect(Worker.runReplayHistory(options, history, HISTORY_FIXTURE_WORKFLOW_ID)).rejects.toBeInstanceOf(
      DeterminismViolationError,
    );
  });
});
