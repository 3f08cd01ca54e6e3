// One trial of a branch study as the loop records it (and the Temporal workflow carries across
// continue-as-new). Metrics are kept so the SweepResult is lossless.
import type { FlatCandidate, ProjectionRecord } from '../sweepResult.js';
import type { ReasonCategory, TrialStatus } from '../trial.js';
import type { Point } from '../optimizer/space.js';

export interface TrialRecord {
  /** 1-based order within the branch. */
  n: number;
  round: number;
  point: Point;
  /** Canonical key of the candidate (dedupe and cache). Empty when the build failed before a candidate existed. */
  key: string;
  candidate: FlatCandidate | null;
  used_gpus: number;
  concurrency: number | null;
  status: TrialStatus;
  reason_category: ReasonCategory | null;
  reason: string | null;
  objectives: Record<string, number> | null;
  metrics: Record<string, number> | null;
  projection: ProjectionRecord | null;
  /** Answered from the run-local cache (an earlier trial with the same candidate) without a replay. */
  cache_hit: boolean;
  /**
   * Compact (stored) trials only, which drop `projection`: the dimensions of `point` the projection
   * moved, with their evaluated values (the optimizer was told `{ ...point, ...observed }`).
   */
  observed?: Point;
}
