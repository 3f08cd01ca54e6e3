// The router a candidate ran with, read from its `dynamo.router` adapter record. Accepts the
// seed's knob names and the adapter-hook aliases (`mode`, `temperature`); absent ⇒ round-robin,
// which is what the replay runs without a router selection (src/replay/spec.ts).
import { z } from 'zod';
import { InputError } from '../errors.js';
import type { CandidateRow } from '../search/sweepResult.js';

export const DeployRouterSettingsSchema = z.strictObject({
  router_mode: z.enum(['kv_router', 'round_robin']),
  overlap_score_credit: z.number().min(0),
  prefill_load_scale: z.number().min(0),
  router_temperature: z.number().min(0),
  host_cache_hit_weight: z.number().min(0),
  disk_cache_hit_weight: z.number().min(0),
});
export type DeployRouterSettings = z.infer<typeof DeployRouterSettingsSchema>;

/** Dynamo's router defaults (dynamo-facts §5). */
const DEFAULTS: DeployRouterSettings = {
  router_mode: 'round_robin',
  overlap_score_credit: 1,
  prefill_load_scale: 1,
  router_temperature: 0,
  host_cache_hit_weight: 0.75,
  disk_cache_hit_weight: 0.25,
};

export function routerSettingsOf(row: Pick<CandidateRow, 'id' | 'config'>): DeployRouterSettings {
  const r = row.config.adapters['dynamo.router'] ?? {};
  const raw = {
    router_mode: r.router_mode ?? r.mode ?? DEFAULTS.router_mode,
    overlap_score_credit: r.overlap_score_credit ?? DEFAULTS.overlap_score_credit,
    prefill_load_scale: r.prefill_load_scale ?? DEFAULTS.prefill_load_scale,
    router_temperature: r.router_temperature ?? r.temperature ?? DEFAULTS.router_temperature,
    host_cache_hit_weight: r.host_cache_hit_weight ?? DEFAULTS.host_cache_hit_weight,
    disk_cache_hit_weight: r.disk_cache_hit_weight ?? DEFAULTS.disk_cache_hit_weight,
  };
  const parsed = DeployRouterSettingsSchema.safeParse(raw);
  if (!parsed.success)
    throw new InputError(`${row.id}: invalid dynamo.router settings: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}
