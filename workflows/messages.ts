// Queries, signals and updates of the sweep and branchStudy workflows (shared with the CLI/tests).
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { BranchProgress, StopAck, SweepProgress, TrialView } from './sweep-types.js';

/** Sweep: phase + per-branch progress. branchStudy: its own BranchProgress. */
export const progressQuery = defineQuery<SweepProgress>('progress');
export const branchProgressQuery = defineQuery<BranchProgress>('progress');

/** Every trial so far (with spica_projection, status, reason). */
export const trialsQuery = defineQuery<TrialView[]>('trials');

/** Finish now with what is done (stop_reason 'stopped'): fire-and-forget or acknowledged. */
export const stopSignal = defineSignal('stop');
export const stopUpdate = defineUpdate<StopAck>('stop');

/** A branch child reports its progress to the parent sweep (throttled; see branch-study.ts). */
export const branchProgressSignal = defineSignal<[BranchProgress, TrialView[]]>('branchProgress');
