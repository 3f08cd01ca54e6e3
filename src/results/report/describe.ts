// A candidate's deployment in words: mode, backend, shape × replicas, engine knobs, router, planner.
import { strategyOf, type WorkerGroup } from '../../parallel/shape.js';
import type { CandidateRow, SweepResult } from '../../search/sweepResult.js';
import type { EngineArgs } from '../../replay/spec.js';
import type { PlannerRecord } from '../../search/deploymentRecord.js';
import { deploymentRoles, workerRolesOf } from '../roles.js';

/** e.g. "TP4 · EP4 (TEP), 4 GPUs". */
export function describeShape(g: WorkerGroup): string {
  const parts = [`TP${g.tp}`];
  if (g.pp > 1) parts.push(`PP${g.pp}`);
  if (g.attention_dp > 1) parts.push(`attention-DP${g.attention_dp}`);
  if (g.moe_ep > 1) parts.push(`EP${g.moe_ep}`);
  if (g.moe_tp > 1 && g.moe_tp !== g.tp * g.attention_dp) parts.push(`MoE-TP${g.moe_tp}`);
  const gpus = g.tp * g.pp * g.attention_dp;
  return `${parts.join(' · ')} (${strategyOf(g).toUpperCase()}), ${gpus} GPU${gpus === 1 ? '' : 's'}`;
}

export interface CandidateDescription {
  headline: string;
  roles: string[];
  router: string;
  planner: string;
}

function rolesWithEngine(row: CandidateRow): { role: string; group: WorkerGroup; engine: EngineArgs | null }[] {
  if (row.deployment) return deploymentRoles(row.deployment);
  return workerRolesOf(row).map((r) => ({ ...r, engine: null }));
}

function plannerLabel(p: PlannerRecord): string {
  return p.scaling_policy.startsWith('{') ? 'custom policy' : p.scaling_policy;
}

function plannerLoops(p: PlannerRecord): string {
  return [p.enable_throughput_scaling ? `throughput every ${p.throughput_adjustment_interval}s` : '', p.enable_load_scaling ? `load every ${p.load_adjustment_interval}s` : ''].filter(Boolean).join(', ');
}

export function describeCandidate(row: CandidateRow, _question?: SweepResult['question']): CandidateDescription {
  const c = row.config;
  const d = row.deployment;
  const roles = rolesWithEngine(row).map(({ role, group, engine: e }) => {
    const knobs = e
      ? `max-num-seqs ${e.max_num_seqs}, max-num-batched-tokens ${e.max_num_batched_tokens}, block ${e.block_size}, GPU memory ${e.gpu_memory_utilization}, prefix caching ${e.enable_prefix_caching ? 'on' : 'off'}${e.nextn ? `, MTP ${e.nextn}` : ''}`
      : 'engine settings not recorded';
    return `${role}: ${group.replicas} × [${describeShape(group)}] — ${knobs}`;
  });
  const r = d?.router;
  const router = !r
    ? 'router settings not recorded'
    : r.router_mode === 'round_robin'
      ? 'round-robin router'
      : `KV router (overlap credit ${r.overlap_score_credit}, prefill load scale ${r.prefill_load_scale}, temperature ${r.router_temperature})`;
  const p = d?.planner;
  const planner = !p
    ? 'planner not recorded'
    : !p.active
      ? `planner off (static replicas${p.inactive_reason ? `: ${p.scaling_policy} inactive, ${p.inactive_reason}` : ''})`
      : `planner ${plannerLabel(p)} (${plannerLoops(p)}; FPM ${p.max_num_fpm_samples}/${p.fpm_sample_bucket_size}; down-sensitivity ${p.load_scaling_down_sensitivity}%${p.enable_throughput_scaling ? `; predictor ${p.load_predictor}` : ''})`;
  const extras = d
    ? [
        `${d.resolved.quantization} weights, ${d.resolved.kv_cache_dtype} KV cache, context ${d.resolved.context_length}`,
        d.backend_deployment.kv_offload.num_g2_blocks > 0 ? `G2 host offload ${d.backend_deployment.kv_offload.num_g2_blocks} blocks` : '',
      ].filter(Boolean)
    : [];
  return {
    headline: `${c.deployment_mode} · ${c.backend} · ${row.used_gpus} GPUs${extras.length ? ` · ${extras.join(' · ')}` : ''}`,
    roles,
    router,
    planner,
  };
}

/** One line per role for tables, e.g. "decode 2× TP2·EP4 — seqs 512, tokens 8192, no prefix cache". */
export function describeCompact(row: CandidateRow, _question?: SweepResult['question']): { roles: string[]; router: string; planner: string } {
  const roles = rolesWithEngine(row).map(({ role, group: g, engine: e }) => {
    const shape = [`TP${g.tp}`, g.pp > 1 ? `PP${g.pp}` : '', g.attention_dp > 1 ? `DP${g.attention_dp}` : '', g.moe_ep > 1 ? `EP${g.moe_ep}` : ''].filter(Boolean).join('·');
    const knobs = e ? ` — seqs ${e.max_num_seqs}, tokens ${e.max_num_batched_tokens}${e.enable_prefix_caching ? '' : ', no prefix cache'}${e.nextn ? `, MTP ${e.nextn}` : ''}` : '';
    return `${role} ${g.replicas}× ${shape}${knobs}`;
  });
  const r = row.deployment?.router;
  const router = !r ? 'router ?' : r.router_mode === 'round_robin' ? 'round-robin' : `KV router (credit ${r.overlap_score_credit}, scale ${r.prefill_load_scale}, T ${r.router_temperature})`;
  const p = row.deployment?.planner;
  const planner = !p || !p.active ? 'static' : `planner ${p.scaling_policy.startsWith('{') ? `custom (${plannerLoops(p)})` : p.scaling_policy}`;
  return { roles, router, planner };
}
