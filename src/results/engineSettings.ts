// A role's engine knobs as a sweep candidate records them (`config.engine["<role>_<knob>"]`).
// The batching knobs must be present (they were simulated; guessing them would deploy something
// else). The pinned scalars fall back to the seed's defaults, which apply to every backend
// (CLARIFICATIONS §C), so results written before they were recorded still deploy as simulated.
import { z } from 'zod';
import { ENGINE_SCALAR_DEFAULTS } from '../config/choices.js';
import { InputError } from '../errors.js';
import type { CandidateRow } from '../search/sweepResult.js';
import type { WorkerRole } from './roles.js';

export const RoleEngineSettingsSchema = z.strictObject({
  max_num_seqs: z.number().int().positive(),
  max_num_batched_tokens: z.number().int().positive(),
  block_size: z.number().int().positive(),
  gpu_memory_utilization: z.number().gt(0).lte(1),
  enable_prefix_caching: z.boolean(),
  /** MTP depth (`aic_nextn`); null when MTP is off. */
  nextn: z.number().int().positive().nullable(),
});
export type RoleEngineSettings = z.infer<typeof RoleEngineSettingsSchema>;

export function roleEngineSettings(row: Pick<CandidateRow, 'id' | 'config'>, role: WorkerRole): RoleEngineSettings {
  const engine = row.config.engine;
  const required = (knob: string): unknown => {
    const v = engine[`${role}_${knob}`];
    if (v === undefined || v === null)
      throw new InputError(`${row.id}: config.engine has no '${role}_${knob}' (known: ${Object.keys(engine).join(', ') || 'none'}); the result does not say what was simulated`);
    return v;
  };
  const pinned = (knob: 'block_size' | 'gpu_memory_utilization' | 'enable_prefix_caching'): unknown =>
    engine[`${role}_${knob}`] ?? ENGINE_SCALAR_DEFAULTS[`${role}_${knob}`];
  const nextn = engine[`${role}_aic_nextn`] ?? engine.aic_nextn ?? null;
  const parsed = RoleEngineSettingsSchema.safeParse({
    max_num_seqs: required('max_num_seqs'),
    max_num_batched_tokens: required('max_num_batched_tokens'),
    block_size: pinned('block_size'),
    gpu_memory_utilization: pinned('gpu_memory_utilization'),
    enable_prefix_caching: pinned('enable_prefix_caching'),
    nextn,
  });
  if (!parsed.success)
    throw new InputError(`${row.id}: invalid ${role} engine knobs: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}
