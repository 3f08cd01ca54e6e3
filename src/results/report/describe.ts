// A candidate's deployment in words: mode, backend, shape × replicas, engine knobs, router, planner.
import { strategyOf, type WorkerGroup } from '../../parallel/shape.js';
import type { CandidateRow, SweepResult } from '../../search/sweepResult.js';
import { roleEngineSettings } from '../engineSettings.js';
import { plannerSettingsOf } from '../plannerSettings.js';
import { workerRolesOf } from '../roles.js';
import { routerSettingsOf } from '../routerSettings.js';

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

function safe<T>(f: () => T): T | null {
  try {
    return f();
  } catch {
    return null;
  }
}

export interface CandidateDescription {
  headline: string;
  roles: string[];
  router: string;
  planner: string;
}

export function describeCandidate(row: CandidateRow, question: SweepResult['question']): CandidateDescription {
  const c = row.config;
  const roles = workerRolesOf(row).map(({ role, group }) => {
    const e = safe(() => roleEngineSettings(row, role));
    const knobs = e
      ? `max-num-seqs ${e.max_num_seqs}, max-num-batched-tokens ${e.max_num_batched_tokens}, block ${e.block_size}, GPU memory ${e.gpu_memory_utilization}, prefix caching ${e.enable_prefix_caching ? 'on' : 'off'}${e.nextn ? `, MTP ${e.nextn}` : ''}`
      : 'engine knobs not recorded';
    return `${role}: ${group.replicas} × [${describeShape(group)}] — ${knobs}`;
  });
  const r = safe(() => routerSettingsOf(row));
  const router = !r
    ? 'router settings invalid'
    : r.router_mode === 'round_robin'
      ? 'round-robin router'
      : `KV router (overlap credit ${r.overlap_score_credit}, prefill load scale ${r.prefill_load_scale}, temperature ${r.router_temperature})`;
  const p = safe(() => plannerSettingsOf(row, question));
  const planner = !p
    ? 'planner off (static replicas)'
    : `planner ${p.scaling_policy.startsWith('{') ? 'custom policy' : p.scaling_policy} (${[p.enable_throughput_scaling ? `throughput every ${p.throughput_adjustment_interval}s` : '', p.enable_load_scaling ? `load every ${p.load_adjustment_interval}s` : ''].filter(Boolean).join(', ')}; FPM ${p.max_num_fpm_samples}/${p.fpm_sample_bucket_size}; down-sensitivity ${p.load_scaling_down_sensitivity}%${p.load_predictor ? `; predictor ${p.load_predictor.load_predictor}` : ''})`;
  return {
    headline: `${c.deployment_mode} · ${c.backend} · ${row.used_gpus} GPUs`,
    roles,
    router,
    planner,
  };
}

/** Short composite label: presets as-is, custom dicts as "custom". */
function shortLabel(label: string): string {
  return label.startsWith('{') ? 'custom' : label;
}

/** One line per role for tables, e.g. "decode 2× TP2·EP4 — seqs 512, tokens 8192, no prefix cache". */
export function describeCompact(row: CandidateRow, question: SweepResult['question']): { roles: string[]; router: string; planner: string } {
  const roles = workerRolesOf(row).map(({ role, group: g }) => {
    const shape = [`TP${g.tp}`, g.pp > 1 ? `PP${g.pp}` : '', g.attention_dp > 1 ? `DP${g.attention_dp}` : '', g.moe_ep > 1 ? `EP${g.moe_ep}` : ''].filter(Boolean).join('·');
    const e = safe(() => roleEngineSettings(row, role));
    const knobs = e ? ` — seqs ${e.max_num_seqs}, tokens ${e.max_num_batched_tokens}${e.enable_prefix_caching ? '' : ', no prefix cache'}${e.nextn ? `, MTP ${e.nextn}` : ''}` : '';
    return `${role} ${g.replicas}× ${shape}${knobs}`;
  });
  const r = safe(() => routerSettingsOf(row));
  const router = !r ? 'router ?' : r.router_mode === 'round_robin' ? 'round-robin' : `KV router (credit ${r.overlap_score_credit}, scale ${r.prefill_load_scale}, T ${r.router_temperature})`;
  const p = safe(() => plannerSettingsOf(row, question));
  const planner = !p
    ? 'static'
    : `planner ${shortLabel(p.scaling_policy)}${p.scaling_policy.startsWith('{') ? ` (${[p.enable_throughput_scaling ? `throughput ${p.throughput_adjustment_interval}s` : '', p.enable_load_scaling ? `load ${p.load_adjustment_interval}s` : ''].filter(Boolean).join(', ')})` : ''}`;
  return { roles, router, planner };
}
