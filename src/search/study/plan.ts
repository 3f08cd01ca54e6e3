// What a branch study needs to run its loop: the searched dimensions, the optimizer settings and
// the first point. Small and JSON-serializable — it travels into the Temporal child workflow; the
// heavy parts (parallel pool, model facts) stay on the materialization side (materialize.ts).
import type { Backend } from '../../model/arch.js';
import type { Dimension, Point } from '../optimizer/space.js';
import type { GoalSpec, ObjectiveName, Direction } from '../goal.js';

export interface StudySettings {
  max_rounds: number;
  candidates_per_round: number;
  parallel_evals: number;
  policy: 'rapid' | 'thorough';
  algorithm: 'bayesian' | 'random';
  seed: number;
}

export interface BranchStudyPlan {
  deployment_mode: 'agg' | 'disagg';
  backends: Backend[];
  /** Searched dimensions (engine/router/planner knobs, latent parallel features, kv_load_ratio range). */
  dimensions: Dimension[];
  /** The first point asked (seed defaults: geometric centres, first modes, ratio 1.0, share 0.5). */
  initial_point: Point;
  /** `thorough` only: how many candidates the complete enumeration has (indices 0..n−1). */
  thorough_size: number | null;
  objectives: { name: ObjectiveName; direction: Direction }[];
  goal: GoalSpec;
  settings: StudySettings;
  /**
   * The optimizer models the objectives around the branch's analytic prior (OptimizerOptions.priorMean).
   * Absent in plans made before it existed: a branch recorded so keeps asking as it did.
   */
  analytic_prior?: true;
  /** The searched dimensions that make a candidate's parallel shape (OptimizerOptions.shapeDimensions); absent in older plans. */
  shape_dimensions?: string[];
}

/** The ReplaySpec api_version the sweeper materializes (checked against the runner before the first trial). */
export const REPLAY_SPEC_VERSION = 1;

/** The point key `thorough` uses: the candidate's index in the complete enumeration. */
export const THOROUGH_INDEX = '__thorough_index';
