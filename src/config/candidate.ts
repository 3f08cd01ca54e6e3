// The flat candidate form (Clarification D): what sweeps record for every trial, what
// `spica replay --candidate` accepts and what a ReplaySpec is materialized from. One schema for
// the sweeper, the simulator and the results.
import { z } from 'zod';
import { BACKENDS } from '../model/arch.js';
import { ParallelConfigEntrySchema } from './schema.js';

export const FlatCandidateSchema = z.strictObject({
  deployment_mode: z.enum(['agg', 'disagg']),
  backend: z.enum(BACKENDS),
  /** `<role>_<knob>` engine values, e.g. `agg_max_num_seqs`. */
  engine: z.record(z.string(), z.union([z.number(), z.boolean(), z.null()])).default(() => ({})),
  parallel_config: ParallelConfigEntrySchema,
  /** Provider selections: `dynamo.router`, `dynamo.planner`. */
  adapters: z.record(z.string(), z.record(z.string(), z.unknown())).default(() => ({})),
  /** The load of a searched `kv_load_ratio` range (absent when the workload's ratio is fixed). */
  kv_load_ratio: z.number().min(0).max(1).optional(),
});
export type FlatCandidate = z.infer<typeof FlatCandidateSchema>;
export type FlatCandidateInput = z.input<typeof FlatCandidateSchema>;
