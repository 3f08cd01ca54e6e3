// The `sweep` workflow: plan (activity) → one `branchStudy` child per viable deployment_mode →
// report (activity: reads the branches' trial chunks from the store, re-hydrates them and assembles
// the SweepResult, which is the workflow result, or a reference to it in the store when too big for
// a payload). No payload here carries all trials.
// Deterministic: config parsing, planning and any I/O live in activities.
import {
  ApplicationFailure,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import type * as activities from '../activities/index.js';
import { initialStudyState } from '../src/search/study/branchStudy.js';
import { branchProgress } from './branch-progress.js';
import { branchStudy } from './branch-study.js';
import { rethrowInputFailure } from './input-failure.js';
import { patchLevel } from './patch-level.js';
import { branchProgressSignal, progressQuery, stopSignal, stopUpdate, trialsQuery } from './messages.js';
import { SPICA_GOAL, SPICA_HARDWARE, SPICA_MODEL } from './search-attributes.js';
import type { BranchStudyResult, SweepInput, SweepOutcome, SweepPlanned, SweepProgress, TrialView } from './sweep-types.js';
import { ACTIVITY_RETRY } from './activity-retry.js';

export { progressQuery, trialsQuery, stopSignal, stopUpdate } from './messages.js';

// Well under a second of CPU (parse + planSweep, tens of ms for the examples): a short timeout instead
// of a heartbeat bounds what a lost worker costs before the retry. Config errors are thrown
// non-retryable by the activity; anything else is retried (activity-retry.ts).
const { plan } = proxyActivities<typeof activities>({
  startToCloseTimeout: '30 seconds',
  retry: ACTIVITY_RETRY,
});

// The same call as a local activity on the workflow's own worker, inside the sweep's first workflow
// task: that task then also starts the branch children, instead of ending at the schedule and waiting
// for a server round trip (poll, completion, a new workflow task). A worker lost inside it costs the
// workflow-task timeout (10 s) before another worker plans again.
const { plan: planLocally } = proxyLocalActivities<typeof activities>({
  startToCloseTimeout: '30 seconds',
  retry: ACTIVITY_RETRY,
});
/** Histories recorded before the plan became a local activity replay with the regular activity. */
export const PLAN_LOCAL_PATCH = 'plan-local-activity';

// Heartbeats every 5 s while it re-hydrates (and, for trials another machine replayed, replays again).
const { reportSweep } = proxyActivities<typeof activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '20 seconds',
  retry: ACTIVITY_RETRY,
});

// The same report as a local activity, for sweeps small enough that it takes well under a second
// (their trials are in this worker's replay cache, or a few replays away): the workflow task that
// hears the last branch finish then also reports and completes, without a server round trip.
const { reportSweep: reportLocally } = proxyLocalActivities<typeof activities>({
  startToCloseTimeout: '30 minutes',
  retry: ACTIVITY_RETRY,
});
/** Histories recorded before small sweeps reported in a local activity replay with the activity. */
export const REPORT_LOCAL_PATCH = 'small-report-local-activity';
/** At most this many recorded trials (all branches) for the local report. */
export const LOCAL_REPORT_MAX_TRIALS = 256;

/** Workflow-task timeout of a branchStudy child (the server caps it at 120 s). */
export const BRANCH_WORKFLOW_TASK_TIMEOUT = '30 seconds';

/** Trial views the parent keeps per branch for the `trials` query: the most recent ones (bounded state). */
export const MAX_TRIAL_VIEWS_PER_BRANCH = 256;

/** Deterministic child id so a restarted parent finds its children again. */
export function branchWorkflowId(parentId: string, mode: string): string {
  return `${parentId}/branch-${mode}`;
}

function upsertLabels(p: SweepPlanned): void {
  const pairs = [
    { key: SPICA_MODEL, value: p.labels.model },
    { key: SPICA_HARDWARE, value: p.labels.hardware },
    { key: SPICA_GOAL, value: p.labels.goal },
  ].filter((pair) => p.searchAttributes.includes(pair.key.name));
  if (pairs.length > 0) upsertSearchAttributes(pairs);
}

export async function sweep(input: SweepInput): Promise<SweepOutcome> {
  try {
    return await runSweep(input);
  } catch (err) {
    rethrowInputFailure(err); // the reason itself is the run's failure, not "Activity task failed"
  }
}

/** Both patches above in one marker (workflows/patch-level.ts); a later patch needs its own `patched()`. */
export const SWEEP_PATCH_LEVEL = 'sweep-patches-to-report-local';

async function runSweep(input: SweepInput): Promise<SweepOutcome> {
  const since = patchLevel(SWEEP_PATCH_LEVEL, [PLAN_LOCAL_PATCH, REPORT_LOCAL_PATCH]);
  const { workflowId } = workflowInfo();
  const progress: SweepProgress = { phase: 'planning', stop_requested: false, branches: [] };
  const trials = new Map<string, TrialView[]>();
  const children: ChildWorkflowHandle<typeof branchStudy>[] = [];

  const requestStop = () => {
    if (progress.stop_requested) return;
    progress.stop_requested = true;
    for (const child of children) void child.signal(stopSignal).catch(() => undefined); // a finished child needs no stop
  };
  setHandler(progressQuery, () => progress);
  // Trial views arrive with the children's progress signals (full projections, even for trials a
  // child has since stored away); the latest MAX_TRIAL_VIEWS_PER_BRANCH per branch are kept, so this
  // state stays bounded — the full list is the SweepResult's.
  setHandler(trialsQuery, () => progress.branches.flatMap((b) => trials.get(b.deployment_mode) ?? []));
  setHandler(stopSignal, requestStop);
  setHandler(stopUpdate, () => {
    requestStop();
    return { accepted: true, trials_done: progress.branches.reduce((n, b) => n + b.trials_done, 0) };
  });
  const keepViews = (mode: BranchStudyResult['deployment_mode'], fresh: TrialView[]) => {
    const known = trials.get(mode) ?? [];
    const last = known.length > 0 ? known[known.length - 1].n : 0;
    trials.set(mode, [...known, ...fresh.filter((t) => t.n > last)].slice(-MAX_TRIAL_VIEWS_PER_BRANCH));
  };
  setHandler(branchProgressSignal, (p, fresh) => {
    const i = progress.branches.findIndex((b) => b.deployment_mode === p.deployment_mode);
    if (i < 0) return;
    progress.branches[i] = p;
    keepViews(p.deployment_mode, fresh);
  });

  let planned: SweepPlanned;
  try {
    planned = await (since(PLAN_LOCAL_PATCH) ? planLocally(input) : plan(input));
  } catch (err) {
    progress.phase = 'failed';
    throw err;
  }
  upsertLabels(planned);
  if (planned.plans.length === 0) {
    progress.phase = 'failed';
    throw ApplicationFailure.nonRetryable('the config leaves no viable deployment_mode branch', 'NoViableBranch', { exit_code: 2 });
  }

  progress.phase = 'studying';
  progress.branches = planned.plans.map((p) =>
    branchProgress(p, initialStudyState(), { waves: 0, wave_ms_total: 0 }, {
      workflowId: branchWorkflowId(workflowId, p.deployment_mode),
      status: 'pending',
      continued_as_new: 0,
    }),
  );
  for (const p of planned.plans) trials.set(p.deployment_mode, []);

  const results = await Promise.all(
    planned.plans.map(async (p, i): Promise<BranchStudyResult> => {
      const entry = () => progress.branches[i];
      try {
        const child = await startChild(branchStudy, {
          workflowId: entry().workflowId,
          // A worker that did not run this branch (after a crash or cache eviction) first replays its
          // whole history since the last continue-as-new. The optimizer's asks are read from their
          // local-activity markers (no GP refit), but re-telling ~500 trials still took ~5 s on a loaded
          // 2-core box (it was ~20 s when asks were recomputed); a replay that outlives the workflow-task
          // timeout never completes and the branch is stuck for good. The price: a worker that dies
          // inside a workflow task holds the branch for up to this long.
          workflowTaskTimeout: BRANCH_WORKFLOW_TASK_TIMEOUT,
          args: [{ sweepId: workflowId, plan: p, context: { config: planned.config, mode: p.deployment_mode, traceSha256: planned.traceSha256, config_hash: planned.config_hash } }],
        });
        children.push(child);
        if (progress.stop_requested) void child.signal(stopSignal).catch(() => undefined);
        if (entry().status === 'pending') progress.branches[i] = { ...entry(), status: 'running' };
        const { views, ...result } = await child.result();
        if (views) keepViews(p.deployment_mode, views);
        const last = entry();
        progress.branches[i] = {
          ...(result.progress
            ? { ...result.progress, workflowId: last.workflowId, status: 'done' as const, eta_seconds: 0 }
            : branchProgress(p, result.state, { waves: 1, wave_ms_total: (last.avg_wave_seconds ?? 0) * 1000 }, {
                workflowId: last.workflowId,
                status: 'done',
                continued_as_new: result.continued_as_new,
              })),
          avg_wave_seconds: last.avg_wave_seconds,
        };
        return result;
      } catch (err) {
        progress.branches[i] = { ...entry(), status: 'failed' };
        throw err;
      }
    }),
  );

  progress.phase = 'reporting';
  const recorded = results.reduce((n, r) => n + (r.progress?.trials_recorded ?? r.state.trials.length), 0);
  const report = recorded <= LOCAL_REPORT_MAX_TRIALS && since(REPORT_LOCAL_PATCH) ? reportLocally : reportSweep;
  const outcome = await report({
    sweep_id: workflowId,
    config: planned.config,
    config_hash: planned.config_hash,
    load_predictor: planned.load_predictor,
    warnings: planned.warnings,
    traceSha256: planned.traceSha256,
    branches: planned.plans.map((p, i) => ({ plan: p, result: results[i] })),
  });
  progress.phase = 'done';
  // The final progress travels in the result (only the payload changes, not the commands).
  return { ...outcome, progress };
}
