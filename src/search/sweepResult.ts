// SweepResult v1: the lossless record of a sweep (dynamo-facts §7, SweepResult schema 1.0).
// Both runSweepLocal and the Temporal `sweep` workflow produce it; src/results renders it.
import { z } from 'zod';
import { FlatCandidateSchema } from '../config/candidate.js';
import { DeploymentRecordSchema } from './deploymentRecord.js';

export const SWEEP_RESULT_SCHEMA_VERSION = '1.0';

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const TrialStatusSchema = z.enum(['feasible', 'infeasible', 'unsupported', 'timed_out', 'failed']);

export const WorkerGroupSchema = z.strictObject({
  tp: z.number().int(),
  pp: z.number().int(),
  attention_dp: z.number().int(),
  moe_tp: z.number().int(),
  moe_ep: z.number().int(),
  replicas: z.number().int(),
});

export const ParallelConfigSchema = z.union([
  WorkerGroupSchema,
  z.strictObject({ prefill: WorkerGroupSchema, decode: WorkerGroupSchema }),
]);

export { FlatCandidateSchema, type FlatCandidate } from '../config/candidate.js';

export const ProjectionRecordSchema = z.strictObject({
  requested: z.record(z.string(), z.union([z.number(), z.string()])),
  actual: z.record(z.string(), z.union([z.number(), z.string()])),
  distance: z.number(),
  mode_projected: z.boolean(),
  parallel_config: ParallelConfigSchema,
});
export type ProjectionRecord = z.infer<typeof ProjectionRecordSchema>;

export const CandidateRowSchema = z.strictObject({
  id: z.string().regex(/^candidate-\d{6}$/),
  branch: z.enum(['agg', 'disagg']),
  round: z.number().int(),
  status: TrialStatusSchema,
  reason_category: z.string().nullable(),
  reason: z.string().nullable(),
  config: FlatCandidateSchema,
  used_gpus: z.number().int(),
  /** Closed-loop concurrency the replay ran at (derived for kv_load_ratio workloads). */
  concurrency: z.number().int().nullable(),
  score: z.number().nullable(),
  objectives: z.record(z.string(), z.number()).nullable(),
  metrics: z.record(z.string(), z.number()).nullable(),
  spica_projection: ProjectionRecordSchema.nullable(),
  /** The optimizer's point (searched dimension values) that produced this candidate. */
  point: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  cache_hit: z.boolean(),
  /** The complete resolved deployment the replay ran (feasible rows; null otherwise): what `spica deploy` renders. */
  deployment: DeploymentRecordSchema.nullable().default(null),
});
export type CandidateRow = z.infer<typeof CandidateRowSchema>;

export const CountsSchema = z.strictObject({
  evaluated: z.number().int(),
  feasible: z.number().int(),
  infeasible: z.number().int(),
  unsupported: z.number().int(),
  timed_out: z.number().int(),
  failed: z.number().int(),
  cache_hits: z.number().int(),
});
export type Counts = z.infer<typeof CountsSchema>;

export const BranchSummarySchema = z.strictObject({
  deployment_mode: z.enum(['agg', 'disagg']),
  backends: z.array(z.string()),
  rounds: z.number().int(),
  trials: z.number().int(),
  /** Why the branch stopped: all rounds ran, projection stalled, the space was exhausted, or a stop request. */
  stop_reason: z.enum(['max_rounds', 'projection_stalled', 'exhausted', 'stopped']),
  /** Best signed score of the first objective after each trial (convergence curve); null before any feasible trial. */
  best_so_far: z.array(z.number().nullable()),
});

export const SweepResultSchema = z.strictObject({
  schema_version: z.literal(SWEEP_RESULT_SCHEMA_VERSION),
  sweep_id: z.string().nullable(),
  config_hash: z.string(),
  simulator_version: z.string(),
  question: z.strictObject({
    model_name: z.string(),
    hardware_sku: z.string(),
    gpu_budget: z.number().int(),
    goal: z.record(z.string(), z.unknown()),
    workload: z.record(z.string(), z.unknown()),
    policy: z.string(),
    algorithm: z.string(),
    seed: z.number().int(),
  }),
  objectives: z.array(z.strictObject({ name: z.string(), direction: z.enum(['max', 'min']) })),
  counts: CountsSchema,
  candidates: z.array(CandidateRowSchema),
  /** Exactly one view: ranked ids for a single objective, or the Pareto front's ids sorted by the last objective. */
  views: z.union([
    z.strictObject({ top_n: z.array(z.string()) }),
    z.strictObject({ pareto_front: z.array(z.string()) }),
  ]),
  branches: z.array(BranchSummarySchema),
  load_predictor: z.record(z.string(), z.unknown()).nullable(),
  warnings: z.array(z.string()),
  /** Pareto results: the front's hypervolume and the reference point it is measured from (null otherwise). */
  hypervolume: z
    .strictObject({ value: z.number().nonnegative(), reference_point: z.record(z.string(), z.number()) })
    .nullable()
    .default(null),
});
export type SweepResult = z.infer<typeof SweepResultSchema>;

export function candidateId(n: number): string {
  return `candidate-${String(n).padStart(6, '0')}`;
}
