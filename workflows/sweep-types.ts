// Payload shapes exchanged by the sweep workflow, its children, the activities and the CLI.
// Type-only: nothing here executes, so workflows and Node code can share it.
import type { SmartSearchConfig } from '../src/config/schema.js';
import type { StopReason, StudyState } from '../src/search/study/branchStudy.js';
import type { BranchStudyPlan } from '../src/search/study/plan.js';
import type { Counts, ProjectionRecord, SweepResult } from '../src/search/sweepResult.js';
import type { EvalOutcome, ReasonCategory, TrialStatus } from '../src/search/trial.js';
import type { TrialTally } from './branch-progress.js';

/**
 * What starts a sweep: the validated config object (what `spica sweep` sends), or raw YAML so the
 * Web UI and `temporal workflow start --input '{"configYaml": "…"}'` can start one. `baseDir`
 * anchors relative paths (trace_path) in the YAML; default: the worker's working directory.
 */
export type SweepInput = SmartSearchConfig | SweepYamlInput;

export interface SweepYamlInput {
  configYaml: string;
  sourceName?: string;
  baseDir?: string;
}

/** Labels the sweep is indexed by (search attributes) and reported with. */
export interface SweepLabels {
  model: string;
  hardware: string;
  goal: string;
}

/** Result of the `plan` activity: only the small parts of planSweep (plans, not materializers). */
export interface SweepPlanned {
  config: SmartSearchConfig;
  config_hash: string;
  labels: SweepLabels;
  seed: number;
  /** One plan per viable deployment_mode, in planSweep order. */
  plans: BranchStudyPlan[];
  load_predictor: Record<string, unknown> | null;
  warnings: string[];
  /** Sweep search attributes registered on the server (only these are upserted). */
  searchAttributes: string[];
  traceSha256: string | null;
}

/** What the replay activity and the materialize activity need to rebuild a branch's context. */
export interface BranchContext {
  config: SmartSearchConfig;
  mode: 'agg' | 'disagg';
  traceSha256: string | null;
  /** The config's hash; the `plan` activity stored the config under it (absent in older inputs). */
  config_hash?: string;
}

/**
 * A branch context as the per-trial activities get it: the config by its hash (the `plan` activity
 * stored it; ~2.4 KB less in every materialize/replay input), resolved by activities/context.ts.
 */
export interface BranchContextRef {
  config_ref: string;
  mode: 'agg' | 'disagg';
  traceSha256: string | null;
}

export type ActivityContext = BranchContext | BranchContextRef;

/** Wave timing and counters a branch carries across continue-as-new. */
export interface BranchCarry {
  /** Compact trials (no candidate, hashed key, scoring metrics only). */
  state: StudyState;
  persistent_cache_hits: number;
  waves: number;
  wave_ms_total: number;
  continued_as_new: number;
  stop_requested: boolean;
  /** Trials stored in chunks so far (absent: every trial is in `state`). */
  tally?: TrialTally;
  chunks?: number;
  /** Where those chunks live (absent: under the branch workflow id, as before RUN_SCOPED_CHUNKS_PATCH). */
  chunk_prefix?: string;
  /**
   * The optimizer's first told trials that `state.optimizer.trials` leaves out: the branch's stored
   * trials 1..told_in_store, rebuilt by the ask activity (absent: the state holds every told trial).
   */
  told_in_store?: number;
}

export interface BranchStudyInput {
  sweepId: string;
  context: BranchContext;
  plan: BranchStudyPlan;
  /** Set by continue-as-new; absent on the first run. */
  carry?: BranchCarry | null;
}

/**
 * What one `branchStudy` child returns: its final state (compact), and where its trials are stored;
 * `report` reads them back and re-hydrates them. Without `trial_chunks` (histories recorded before
 * trials went to the store) every trial is in `state`.
 */
export interface BranchStudyResult {
  deployment_mode: 'agg' | 'disagg';
  state: StudyState;
  persistent_cache_hits: number;
  continued_as_new: number;
  trial_chunks?: { prefix: string; chunks: number };
  /** The branch's final progress (counts, best, Pareto front size) over all its trials. */
  progress?: BranchProgress;
  /** Views of the trials no progress signal carried (branches under SIGNALS_AT_TASK_END_PATCH). */
  views?: TrialView[];
}

/** Result of the replay activity for one wave. */
export interface WaveOutcome {
  outcomes: EvalOutcome[];
  /** Replays answered by the persistent cache (not part of determinism). */
  cache_hits: number;
  /**
   * Milliseconds the activity spent answering (cache look-ups and replays): what the workflow sizes
   * the next wave's replay units by (replay-units.ts). Absent in histories recorded before.
   */
  replay_ms?: number;
}

export type BranchStatus = 'pending' | 'running' | 'done' | 'failed';

export interface BranchProgress {
  deployment_mode: 'agg' | 'disagg';
  workflowId: string;
  status: BranchStatus;
  round: number;
  max_rounds: number;
  /** Unique trials: repeats answered by the run-local memo are not counted (nor in the status counts below). */
  trials_done: number;
  /** max_rounds × candidates_per_round (rapid: unique feasible trials wanted) or the enumeration size (thorough). */
  trials_wanted: number;
  /** Every recorded trial, repeats included. */
  trials_recorded: number;
  feasible: number;
  infeasible: number;
  failed: number;
  timed_out: number;
  unsupported: number;
  /** Best first-objective value so far (raw, with its trial number). */
  best: { objective: string; value: number; trial: number } | null;
  /** Pareto goals: size of the current front of feasible trials; null otherwise. */
  pareto_front_size: number | null;
  avg_wave_seconds: number | null;
  eta_seconds: number | null;
  continued_as_new: number;
  stop_reason: StopReason | null;
}

export interface SweepProgress {
  phase: 'planning' | 'studying' | 'reporting' | 'done' | 'failed';
  stop_requested: boolean;
  branches: BranchProgress[];
}

/** One trial as the `trials` query shows it. */
export interface TrialView {
  branch: 'agg' | 'disagg';
  n: number;
  round: number;
  status: TrialStatus;
  reason_category: ReasonCategory | null;
  reason: string | null;
  point: Record<string, string | number | boolean>;
  objectives: Record<string, number> | null;
  used_gpus: number;
  spica_projection: ProjectionRecord | null;
  cache_hit: boolean;
}

/** A SweepResult too big for a workflow payload, kept in the store (src/store) of the reporting worker. */
export interface StoredSweepResult {
  stored: true;
  /** Which store holds it; absent in references written before PostgreSQL stores existed (a directory). */
  store?: 'directory' | 'postgresql';
  /** Blob name within that store. */
  name?: string;
  /** The absolute file path (directory store) or `postgresql://host:port/db#result/<name>`. */
  path: string;
  sha256: string;
  bytes: number;
  sweep_id: string | null;
  counts: Counts;
}

/**
 * The `sweep` workflow's result: the SweepResult itself, or a reference when it is too big (what the
 * report activity returns), plus the run's final progress — what the `progress` query answers once
 * the run closed, so `spica sweep` prints its last progress line without a query (which replays the
 * closed workflow on a worker). Runs recorded before carry no `progress`.
 */
export type SweepOutcome = (SweepResult | StoredSweepResult) & { progress?: SweepProgress };

/** The outcome without its `progress` (a SweepResult or a reference, as the report returned it) and that progress (null when absent). */
export function splitOutcome(o: SweepOutcome): { outcome: SweepResult | StoredSweepResult; progress: SweepProgress | null } {
  const { progress, ...outcome } = o;
  return { outcome: outcome as SweepResult | StoredSweepResult, progress: progress ?? null };
}

export interface StopAck {
  accepted: boolean;
  /** Trials finished when the stop was received (all branches). */
  trials_done: number;
}

export function isYamlInput(input: SweepInput): input is SweepYamlInput {
  return typeof input === 'object' && input !== null && typeof (input as { configYaml?: unknown }).configYaml === 'string';
}

export function isStoredResult(o: SweepOutcome): o is StoredSweepResult {
  return (o as StoredSweepResult).stored === true;
}
