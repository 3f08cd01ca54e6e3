// One deployment_mode branch of a sweep: the sweeper core's round loop (runBranchStudy) in workflow
// code, with materialization and replay as activities and each optimizer ask as a local activity.
// Deterministic: the optimizer state lives here; a replay reads the recorded asks (no GP refit) and
// re-applies the tells, in ask order. Each candidate of a wave is its own `replayCandidate` activity,
// so every worker polling the task queue takes a share of a wave; outcomes are told in ask order
// whatever order (or worker) they finish on. Exception: `spica sweep`'s in-process worker, while no
// other worker polls, replays a wave itself as local activities (WAVES_HERE_PATCH). History stays
// bounded: when the server suggests it, the loop pauses at a round boundary and continues-as-new
// carrying the compact state (compact-trial.ts).
// Each finished round's trials go to the store in one chunk (storeTrialChunk), so neither the
// carried state nor the result grows with the trial count: they hold counters, a progress tally and
// the chunk count; the report reads the chunks.
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type * as activities from '../activities/index.js';
import { initialStudyState, runBranchStudy, trialCount, type StudyHooks, type StudyPorts, type StudyState } from '../src/search/study/branchStudy.js';
import { addToTally, branchProgress, emptyTally, trialViews, type TrialTally } from './branch-progress.js';
import { carryToldTrials, compactState, compactTrial, scoringMetricKeys } from './compact-trial.js';
import type { EvalOutcome } from '../src/search/trial.js';
import type { OptimizerState } from '../src/search/optimizer/optimizer.js';
import type { Point } from '../src/search/optimizer/space.js';
import type { MaterializedCandidate } from '../src/search/study/materialize.js';
import type { TrialRecord } from '../src/search/study/trialRecord.js';
import type { TrialChunk } from '../activities/trial-chunks.js';
import { rethrowInputFailure } from './input-failure.js';
import { patchLevel } from './patch-level.js';
import { replayUnits } from './replay-units.js';
import { branchProgressQuery, branchProgressSignal, stopSignal, stopUpdate, trialsQuery } from './messages.js';
import type { ActivityContext, BranchStatus, BranchStudyInput, BranchStudyResult, TrialView, WaveOutcome } from './sweep-types.js';
import { ACTIVITY_RETRY } from './activity-retry.js';

// Store reads/writes of one chunk: small, so a short timeout bounds a lost worker's hold.
const { storeTrialChunk, recallTrials } = proxyActivities<typeof activities>({
  startToCloseTimeout: '1 minute',
  retry: ACTIVITY_RETRY,
});

/** Histories recorded before trials went to the store keep every trial in workflow state. */
export const TRIALS_IN_STORE_PATCH = 'trial-chunks-in-store';
/** At most this many trial views travel per progress signal (the parent keeps a recent window). */
export const MAX_VIEWS_PER_SIGNAL = 64;
/**
 * Histories recorded before materialize calls, trial chunks and replay units were capped replay with
 * one materialize call per ask and one chunk per round, whatever their size.
 */
export const BOUNDED_PIECES_PATCH = 'bounded-materialize-chunks-units';
/** Points per `materializeCandidates` call (~0.9 KB per candidate out: ≤ ~60 KB per result). */
export const MAX_MATERIALIZE_POINTS = 64;
/** Trials per stored chunk (~300 B each compact: ≤ ~80 KB per `storeTrialChunk` input). */
export const MAX_CHUNK_TRIALS = 256;
/** Candidates per `replayWave` unit (~3.5 KB each in: ≤ ~112 KB per input). */
export const MAX_UNIT_CANDIDATES = 32;

/**
 * Histories recorded before progress signals were thinned signal the parent whenever trials advanced.
 * Since: at most once per round up to round EVERY_ROUND_SIGNALS, then only in rounds that are powers of
 * two, plus when the status changes — so the parent's history holds O(32 + log2 rounds) signals per
 * branch, not one per round. Live figures: the branch's own `progress` query (the CLI reads it).
 */
export const THIN_PROGRESS_PATCH = 'progress-signals-thinned';
export const EVERY_ROUND_SIGNALS = 32;

/** Whether a branch in `round` signals its parent (once in that round; status changes always do). */
export function progressSignalDue(round: number): boolean {
  return round <= EVERY_ROUND_SIGNALS || (round & (round - 1)) === 0;
}

/** Trial views a branch keeps for its own `trials` query (memory only; the parent keeps 256 too). */
const RECENT_VIEWS = 256;

/** `items` in consecutive pieces of at most `size`. */
function pieces<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

// Milliseconds of CPU (a cached plan) or well under a second (a worker's first plan of this config):
// a short timeout instead of a heartbeat, so a lost worker costs at most this before the retry.
const { materializeCandidates } = proxyActivities<typeof activities>({
  startToCloseTimeout: '30 seconds',
  retry: ACTIVITY_RETRY,
});

// A chunk of a wave on one worker: a whole wave in histories recorded before replayCandidate, a chunk of
// quick replays since (replay-units.ts).
const { replayWave } = proxyActivities<typeof activities>({
  startToCloseTimeout: '24 hours',
  heartbeatTimeout: '20 seconds',
  retry: ACTIVITY_RETRY,
});

// One replay (bounded by max_eval_seconds in the pool); heartbeats every 5 s prove the worker is alive,
// so a lost (e.g. SIGKILLed) worker's replays are retried elsewhere within 20 s
// (test/temporal/faults.test.ts).
const { replayCandidate } = proxyActivities<typeof activities>({
  startToCloseTimeout: '24 hours',
  heartbeatTimeout: '20 seconds',
  retry: ACTIVITY_RETRY,
});

// A wave the branch's own worker replays itself (WAVES_HERE_PATCH): on its replay-thread pool, each
// replay bounded by max_eval_seconds there. No heartbeat: a worker lost inside it costs the branch's
// workflow-task timeout (30 s), after which the next worker replays the wave again (the replays that
// had finished are persistent-cache hits).
const { replayWave: replayWaveHere } = proxyLocalActivities<typeof activities>({
  startToCloseTimeout: '24 hours',
  retry: ACTIVITY_RETRY,
});

/**
 * Histories recorded before waves could run on the branch's own worker schedule replay activities for
 * every wave. Since, each wave first asks `waveHere` (a local activity, so the answer is recorded):
 * yes only on `spica sweep`'s in-process worker while no other worker polls the task queue for
 * activities (activities/wave-here.ts); then the wave is local activities of the same workflow task,
 * with no server round trip per replay. A worker that starts polling takes its share from the next wave.
 */
export const WAVES_HERE_PATCH = 'replay-waves-on-sole-worker';
/**
 * Histories recorded before signalled the parent when a round's signal fell due, also inside a
 * workflow task held open by waves replayed here, so that task ended with a signal per round (each
 * waking the parent for a workflow task of its own). Since, a due signal waits for the point where the
 * branch's task ends anyway (replay activities scheduled, the chunk write that ends a held task, the
 * continue-as-new or the completion) and leaves then, with the progress and trials of that moment.
 */
export const SIGNALS_AT_TASK_END_PATCH = 'progress-signals-at-task-end';
/**
 * Local activities hold the workflow task open (the server hears of them when it completes), and
 * queries, signals and history writes wait for it. So once waves replayed here add up to this much
 * replay time, the round's trial-chunk write is a regular activity, whose server round trip ends the
 * task (otherwise the SDK ends it only at 80 % of the 30-s workflow-task timeout).
 */
export const HELD_TASK_REPLAY_MS = 1_000;

// The optimizer's ask (GP fit + acquisition) runs as a local activity: a replaying worker reads its
// recorded points instead of refitting the GP for every past round, keeping workflow tasks short
// (CLARIFICATIONS E). It is CPU on this worker, seconds at most, hence the generous timeout; a worker
// lost inside it costs the branch's workflow-task timeout (30 s), after which another worker asks again.
const { askOptimizer } = proxyLocalActivities<typeof activities>({
  startToCloseTimeout: '2 minutes',
  retry: ACTIVITY_RETRY,
});

// Materialize, recall and the trial-chunk write as local activities on the branch's own worker: each
// is milliseconds, and as a regular activity each cost a server round trip (schedule, poll, complete,
// a new workflow task: 20–80 ms on a loaded 2-core box) in every round, one after another. As local
// activities the ask, materialize and recall of a round run inside one workflow task, which ends by
// scheduling the replays. Same timeouts as the regular ones; a worker lost inside one costs the
// branch's workflow-task timeout (30 s), as for the ask.
const localSteps = proxyLocalActivities<typeof activities>({
  startToCloseTimeout: '30 seconds',
  retry: ACTIVITY_RETRY,
});
/**
 * Histories recorded before materialize, recall and storeTrialChunk became local activities replay
 * with them as regular activities.
 */
export const SHORT_STEPS_LOCAL_PATCH = 'short-steps-local-activities';

/**
 * Histories recorded before replay a round's trial-chunk write, optimizer ask, materialize and recall
 * as up to four local activities, one after another between two waves. Since, they are one
 * (`askAndMaterialize`): the chunk a round leaves waits for the next ask, which writes it first; a
 * chunk with no ask after it (the last round, a pause for continue-as-new, a thorough branch, a
 * recall or materialize of the old kind) is written on its own before that.
 */
export const ONE_STEP_ROUNDS_PATCH = 'round-steps-in-one-local-activity';

/** Histories recorded before the ask moved into a local activity replay with the in-workflow ask. */
const ASK_LOCAL_ACTIVITY_PATCH = 'optimizer-ask-local-activity';
/**
 * Histories recorded before replay units were sized by the replay time the activities report size
 * them by the wave's wall time per candidate, which shrinks with every worker added (W workers share
 * a wave, so a candidate seemed to cost 1/W of its replay): the more workers, the bigger the units
 * and the fewer of them, down to two per wave however many workers poll.
 */
export const UNITS_BY_REPLAY_TIME_PATCH = 'replay-units-sized-by-replay-time';
/** Histories recorded before one activity per candidate replay with one `replayWave` per wave. */
const REPLAY_PER_CANDIDATE_PATCH = 'replay-activity-per-candidate';
/**
 * Histories recorded before the optimizer's told trials were left to the store carry them all
 * (continue-as-new state and result); since, the ask activity rebuilds them from the trial chunks.
 */
export const TOLD_TRIALS_IN_STORE_PATCH = 'optimizer-told-trials-in-store';

/**
 * Trial chunks under `<branch workflow id>/<first run id>`: the workflow id alone repeats across
 * Temporal servers (and on a server whose history was reset), so two sweeps of one config and seed
 * sharing a store (PostgreSQL, a network directory) would write, cache and read each other's chunks.
 * The first run id is fixed for a whole continue-as-new chain; continued runs carry the prefix.
 */
export const RUN_SCOPED_CHUNKS_PATCH = 'trial-chunks-under-run-id';

/**
 * Every patch above, in one marker (workflows/patch-level.ts): a branch run started since records only
 * this one. A patch added after it needs its own `patched()` call.
 */
export const BRANCH_PATCH_LEVEL = 'branch-patches-to-one-step-rounds';
const BRANCH_PATCHES = [
  RUN_SCOPED_CHUNKS_PATCH,
  BOUNDED_PIECES_PATCH,
  THIN_PROGRESS_PATCH,
  SHORT_STEPS_LOCAL_PATCH,
  WAVES_HERE_PATCH,
  SIGNALS_AT_TASK_END_PATCH,
  REPLAY_PER_CANDIDATE_PATCH,
  UNITS_BY_REPLAY_TIME_PATCH,
  TRIALS_IN_STORE_PATCH,
  ASK_LOCAL_ACTIVITY_PATCH,
  TOLD_TRIALS_IN_STORE_PATCH,
  ONE_STEP_ROUNDS_PATCH,
] as const;

export async function branchStudy(input: BranchStudyInput): Promise<BranchStudyResult> {
  try {
    return await studyBranch(input);
  } catch (err) {
    rethrowInputFailure(err);
  }
}

async function studyBranch(input: BranchStudyInput): Promise<BranchStudyResult> {
  const since = patchLevel(BRANCH_PATCH_LEVEL, BRANCH_PATCHES);
  const { workflowId } = workflowInfo();
  const { plan, context } = input;
  // Per-trial activities get the config by its hash (the plan activity stored it): ~2.4 KB less in
  // every materialize and replay input. Inputs from before config_hash carry the config itself.
  const activityContext: ActivityContext = context.config_hash
    ? { config_ref: context.config_hash, mode: context.mode, traceSha256: context.traceSha256 }
    : context;
  const carry = input.carry ?? null;
  let stopRequested = carry?.stop_requested ?? false;
  let persistentHits = carry?.persistent_cache_hits ?? 0;
  const clock = { waves: carry?.waves ?? 0, wave_ms_total: carry?.wave_ms_total ?? 0 };
  const continuedAsNew = carry?.continued_as_new ?? 0;
  let current: StudyState = carry?.state ?? initialStudyState();
  let status: BranchStatus = 'running';
  // The parent already holds every trial reported before a continue-as-new.
  let reportedN = carry ? trialCount(current) : 0;
  const pendingSignals: Promise<void>[] = [];
  let tally: TrialTally = carry?.tally ?? emptyTally();
  let chunks = carry?.chunks ?? 0;
  const chunkPrefix = carry
    ? (carry.chunk_prefix ?? workflowId)
    : since(RUN_SCOPED_CHUNKS_PATCH)
      ? `${workflowId}/${workflowInfo().firstExecutionRunId}`
      : workflowId;
  /** Views of stored trials not yet sent to the parent (the loop no longer holds them). */
  let unsentViews: TrialView[] = [];
  /** Views of the latest stored trials, for this branch's own `trials` query. */
  let recentViews: TrialView[] = [];
  // Payloads bounded by constants, not by the round size (candidates_per_round, parallel_evals).
  const bounded = since(BOUNDED_PIECES_PATCH);
  const thinSignals = since(THIN_PROGRESS_PATCH);
  // Thinned: a continued run's parent already knows the branch runs, and in which round it signalled.
  let reportedStatus: BranchStatus | null = thinSignals && carry ? 'running' : null;
  let reportedRound = thinSignals && carry ? current.round : -1;
  const shortLocal = since(SHORT_STEPS_LOCAL_PATCH);
  const wavesHere = shortLocal && since(WAVES_HERE_PATCH);
  /** Replay time of waves replayed here since the workflow task last ended (see HELD_TASK_REPLAY_MS). */
  let heldReplayMs = 0;
  /**
   * `waveHere` said yes and the task has not been ended since: the next waves stay here without asking
   * again (a worker that starts polling meanwhile gets its share once the task ends, ≤ ~1 s of replays).
   */
  let hereUntilTaskEnds = false;
  const materializeStep = shortLocal ? localSteps.materializeCandidates : materializeCandidates;
  const storeStep = shortLocal ? localSteps.storeTrialChunk : storeTrialChunk;
  const recallStep = shortLocal ? localSteps.recallTrials : recallTrials;

  const progress = () => branchProgress(plan, current, clock, { workflowId, status, continued_as_new: continuedAsNew }, tally);
  setHandler(branchProgressQuery, progress);
  setHandler(trialsQuery, () => [...recentViews, ...trialViews(plan, current)].slice(-RECENT_VIEWS));
  setHandler(stopSignal, () => void (stopRequested = true));
  setHandler(stopUpdate, () => {
    stopRequested = true;
    return { accepted: true, trials_done: current.trials.length };
  });

  const atTaskEnd = wavesHere && since(SIGNALS_AT_TASK_END_PATCH);
  /** A signal fell due and waits for the workflow task to end (SIGNALS_AT_TASK_END_PATCH). */
  let signalOwed = false;
  /** Views of the trials the parent has not heard of (the latest MAX_VIEWS_PER_SIGNAL). */
  const unreportedViews = () => {
    const inMemory = trialViews(plan, { ...current, trials: current.trials.filter((t) => t.n > reportedN) });
    return [...unsentViews.filter((v) => v.n > reportedN), ...inMemory].slice(-MAX_VIEWS_PER_SIGNAL);
  };
  /** Sends new trials and progress to the parent sweep (only when something changed). */
  const report = () => {
    const parent = workflowInfo().parent;
    const known = tally.trials + current.trials.length;
    if (!parent || (known === reportedN && status === reportedStatus)) return;
    if (thinSignals && status === reportedStatus && (current.round === reportedRound || !progressSignalDue(current.round))) return;
    if (atTaskEnd && status === 'running') {
      signalOwed = true;
      return;
    }
    signal();
  };
  /** Sends the owed signal: the workflow task is about to end. */
  const beforeTaskEnds = () => {
    if (signalOwed) signal();
  };
  const signal = () => {
    const parent = workflowInfo().parent!;
    const known = tally.trials + current.trials.length;
    signalOwed = false;
    reportedRound = current.round;
    const fresh = unreportedViews();
    unsentViews = [];
    reportedN = known;
    reportedStatus = status;
    pendingSignals.push(
      getExternalWorkflowHandle(parent.workflowId)
        .signal(branchProgressSignal, progress(), fresh)
        .catch(() => undefined), // progress is best effort: a missing parent must not fail the study
    );
  };

  /** ONE_STEP_ROUNDS_PATCH: decided with the other ports below. */
  let oneStep = false;
  /** Chunks stored by the loop and not yet written: the next `askAndMaterialize` writes them first. */
  let unwritten: TrialChunk[] = [];
  /** The last ask's points, materialized with it (the loop materializes exactly those next). */
  let askedAhead: { points: Point[]; candidates: MaterializedCandidate[]; recalled: TrialRecord[] | null } | null = null;
  /** The stored trials of the candidates the loop is evaluating, recalled with their ask. */
  let recalledAhead: TrialRecord[] | null = null;
  /** Writes the chunks no ask took along (before anything else reads the store, and before the run ends). */
  const writeUnwritten = async () => {
    if (unwritten.length === 0) return;
    const chunksToWrite = unwritten;
    unwritten = [];
    await Promise.all(chunksToWrite.map((c) => storeStep(c)));
  };

  /** Wall time per candidate of the last wave (workflow time), to size the next wave's replay units. */
  let msPerCandidate: number | null = null;
  const ports: StudyPorts = {
    materialize: async (points) => {
      report();
      const ahead = askedAhead;
      askedAhead = null;
      recalledAhead = ahead && ahead.points === points ? ahead.recalled : null;
      if (ahead && ahead.points === points) return ahead.candidates;
      if (points.length === 0) return [];
      await writeUnwritten();
      if (!bounded) return materializeStep({ context: activityContext, points });
      const done = await Promise.all(pieces(points, MAX_MATERIALIZE_POINTS).map((p) => materializeStep({ context: activityContext, points: p })));
      return done.flat();
    },
    evaluate: async (candidates) => {
      const started = Date.now(); // workflow time: deterministic on replay
      let outcomes: EvalOutcome[];
      let hereMs: number | null = null;
      const here = wavesHere && (hereUntilTaskEnds || (hereUntilTaskEnds = (await localSteps.waveHere()).here));
      if (!here) beforeTaskEnds(); // the replay activities end this workflow task
      if (here) {
        // In ask order, in units of bounded payload; the units share this worker's replay threads.
        const done = await Promise.all(pieces(candidates, MAX_UNIT_CANDIDATES).map((unit) => replayWaveHere({ context: activityContext, candidates: unit })));
        outcomes = done.flatMap((d) => d.outcomes);
        persistentHits += done.reduce((n, d) => n + d.cache_hits, 0);
        // The units run side by side: the wave took about as long as its longest unit. (Workflow time
        // stands still inside one workflow task, so it cannot tell.)
        hereMs = Math.max(...done.map((d) => d.replay_ms ?? 0));
        heldReplayMs += hereMs;
      } else if (since(REPLAY_PER_CANDIDATE_PATCH)) {
        // Scheduled together, awaited in ask order: the outcome never depends on completion order.
        // One activity per candidate, or chunks (replayWave) when replays are quick (replay-units.ts).
        const units = replayUnits(candidates, msPerCandidate, bounded ? MAX_UNIT_CANDIDATES : Infinity);
        const done = await Promise.all(
          units.map((unit) =>
            unit.length === 1
              ? replayCandidate({ context: activityContext, candidate: unit[0] }).then(
                  (d): WaveOutcome => ({ outcomes: [d.outcome], cache_hits: d.cache_hit ? 1 : 0, replay_ms: d.replay_ms }),
                )
              : replayWave({ context: activityContext, candidates: unit }),
          ),
        );
        outcomes = done.flatMap((d) => d.outcomes);
        persistentHits += done.reduce((n, d) => n + d.cache_hits, 0);
        // The activities' own time (recorded in their results, so replays see the same): what a
        // candidate costs whichever worker runs it and however many share the wave.
        const reported = since(UNITS_BY_REPLAY_TIME_PATCH) && done.every((d) => d.replay_ms !== undefined);
        const workMs = reported ? done.reduce((n, d) => n + d.replay_ms!, 0) : Date.now() - started;
        msPerCandidate = workMs / Math.max(1, candidates.length);
      } else {
        const wave = await replayWave({ context: activityContext, candidates });
        outcomes = wave.outcomes;
        persistentHits += wave.cache_hits;
      }
      clock.waves += 1;
      clock.wave_ms_total += hereMs ?? Date.now() - started;
      return outcomes;
    },
  };
  const trialsInStore = since(TRIALS_IN_STORE_PATCH);
  if (trialsInStore) {
    const keys = scoringMetricKeys(plan.goal);
    ports.store = async (trials) => {
      const views = trialViews(plan, { ...current, trials: trials.filter((t) => t.n > reportedN) });
      const compact = trials.map((t) => compactTrial(t, keys));
      const parts = bounded ? pieces(compact, MAX_CHUNK_TRIALS) : [compact];
      const endTask = heldReplayMs >= HELD_TASK_REPLAY_MS;
      if (endTask) {
        heldReplayMs = 0;
        hereUntilTaskEnds = false;
        beforeTaskEnds();
      }
      const written = parts.map((part, i): TrialChunk => ({ prefix: chunkPrefix, index: chunks + i, trials: part }));
      if (oneStep && !endTask) {
        unwritten = [...unwritten, ...written];
      } else {
        const step = endTask ? storeTrialChunk : storeStep;
        const toWrite = [...unwritten, ...written];
        unwritten = [];
        await Promise.all(toWrite.map((c) => step(c)));
      }
      chunks += parts.length;
      tally = addToTally(plan, tally, trials);
      unsentViews = [...unsentViews, ...views].slice(-MAX_VIEWS_PER_SIGNAL);
      if (thinSignals) recentViews = [...recentViews, ...trialViews(plan, { ...current, trials: trials.slice(-RECENT_VIEWS) })].slice(-RECENT_VIEWS);
      // The loop forgets these trials now.
      current = { ...current, trials: [], stored_trials: tally.trials };
    };
    ports.recall = async (keys) => {
      const ahead = recalledAhead;
      recalledAhead = null;
      if (ahead) {
        const wanted = new Set(keys);
        return ahead.filter((t) => wanted.has(t.key));
      }
      await writeUnwritten();
      return recallStep({ prefix: chunkPrefix, chunks, keys });
    };
  }
  const askLocal = since(ASK_LOCAL_ACTIVITY_PATCH);
  // The optimizer's told trials stay in the store: a state carried in from a run that still held
  // them all (no `told_in_store`) keeps them.
  const toldInStore = trialsInStore && askLocal && (carry === null || carry.told_in_store !== undefined) && since(TOLD_TRIALS_IN_STORE_PATCH);
  /** How many of the optimizer's told trials (the first ones) its carried state leaves to the store. */
  const toldLeftOut = carry?.told_in_store ?? 0;
  oneStep = askLocal && shortLocal && trialsInStore && bounded && since(ONE_STEP_ROUNDS_PATCH);
  if (askLocal) {
    // The activity leaves out the told trials; the loop's optimizer adopts the rest (branchStudy.ts).
    // The context gives the activity the branch's projector (the optimizer asks only legal points).
    const askInput = (state: OptimizerState, n: number) =>
      toldInStore && toldLeftOut > 0 ? { state, n, context, told: { prefix: chunkPrefix, chunks, count: toldLeftOut } } : { state, n, context };
    ports.ask = oneStep
      ? async (state, n) => {
          const store = unwritten;
          unwritten = [];
          const asked = await localSteps.askAndMaterialize({
            store,
            ask: askInput(state, n),
            materialize: { context: activityContext, maxPoints: MAX_MATERIALIZE_POINTS },
            ...(chunks > 0 ? { recall: { prefix: chunkPrefix, chunks } } : {}),
          });
          askedAhead = asked.candidates ? { points: asked.points, candidates: asked.candidates, recalled: asked.recalled } : null;
          return { points: asked.points, state: asked.state };
        }
      : (state, n) => askOptimizer(askInput(state, n));
  }
  /** The state to carry or return: under toldInStore without the told trials the store holds. */
  const carried = (s: StudyState) => {
    const compact = compactState(s, plan.goal);
    return toldInStore ? carryToldTrials(compact, toldLeftOut) : { state: compact, told_in_store: undefined };
  };
  const hooks: StudyHooks = {
    shouldStop: () => stopRequested,
    afterWave: (s) => {
      current = s;
    },
    afterRound: (s) => {
      current = s;
      report();
      return workflowInfo().continueAsNewSuggested ? 'pause' : 'continue';
    },
  };

  // The chunks the last rounds left are in the store before a continue-as-new or the result.
  const study = async () => {
    const r = await runBranchStudy(plan, ports, hooks, current);
    await writeUnwritten();
    return r;
  };
  let result = await study();
  while (!result.finished) {
    current = result.state;
    if (!stopRequested) {
      report();
      beforeTaskEnds();
      await condition(allHandlersFinished);
      await Promise.all(pendingSignals);
      // A stop that arrived meanwhile is honoured by this run instead of being lost in the hand-over.
      if (!stopRequested) {
        const next = carried(current);
        await continueAsNew<typeof branchStudy>({
          ...input,
          carry: {
            state: next.state,
            ...(next.told_in_store !== undefined ? { told_in_store: next.told_in_store } : {}),
            persistent_cache_hits: persistentHits,
            waves: clock.waves,
            wave_ms_total: clock.wave_ms_total,
            continued_as_new: continuedAsNew + 1,
            stop_requested: false,
            ...(trialsInStore ? { tally, chunks, ...(chunkPrefix !== workflowId ? { chunk_prefix: chunkPrefix } : {}) } : {}),
          },
        });
      }
    }
    result = await study();
  }
  current = result.state;
  status = 'done';
  // Under SIGNALS_AT_TASK_END_PATCH the result tells the parent the last trials: a final signal would
  // keep the branch open for one more workflow task, until the server confirmed it.
  const views = atTaskEnd ? unreportedViews() : undefined;
  if (!atTaskEnd) report();
  await condition(allHandlersFinished);
  await Promise.all(pendingSignals);
  return {
    deployment_mode: plan.deployment_mode,
    state: carried(current).state,
    persistent_cache_hits: persistentHits,
    continued_as_new: continuedAsNew,
    ...(trialsInStore ? { trial_chunks: { prefix: chunkPrefix, chunks }, progress: progress() } : {}),
    ...(views ? { views } : {}),
  };
}
