// The listed candidates (ranked top-N or Pareto front) as the CLI table and the report show them:
// candidates whose replays are identical are one line ("+2 equivalent" — a knob that does not bind
// changes the deployment but not the replay), and each line names the settings that tell it apart
// from the other listed lines (shape, backend and GPUs have their own columns).
import { canonicalJson } from '../config/canonical-json.js';
import type { CandidateRow, SweepResult } from '../search/sweepResult.js';
import { deploymentRoles } from './roles.js';

export interface ListedGroup {
  row: CandidateRow;
  /** Listed candidates with the same replay (metrics and GPUs), after `row` in view order. */
  equivalent: CandidateRow[];
  /** The settings that differ among the listed lines: name → this line's value. */
  differing: [string, string][];
}

function replayKey(row: CandidateRow): string {
  return canonicalJson({ gpus: row.used_gpus, metrics: row.metrics ?? null, objectives: row.objectives ?? null });
}

function policyLabel(label: string): string {
  return label.startsWith('{') ? 'custom' : label;
}

/** Every deployment setting of a row by a short name (what the table may show). */
export function settingsOf(row: CandidateRow): Record<string, string> {
  const out: Record<string, string> = {};
  const d = row.deployment;
  if (d) {
    for (const { role, engine: e } of deploymentRoles(d)) {
      out[`${role}.max_num_seqs`] = String(e.max_num_seqs);
      out[`${role}.max_num_batched_tokens`] = String(e.max_num_batched_tokens);
      out[`${role}.block_size`] = String(e.block_size);
      out[`${role}.gpu_memory_utilization`] = String(e.gpu_memory_utilization);
      out[`${role}.prefix_caching`] = e.enable_prefix_caching ? 'on' : 'off';
      out[`${role}.mtp`] = e.nextn ? String(e.nextn) : 'off';
    }
    const r = d.router;
    out.router = r.router_mode === 'kv_router' ? 'kv' : 'round_robin';
    if (r.router_mode === 'kv_router') {
      out.overlap_score_credit = String(r.overlap_score_credit);
      out.prefill_load_scale = String(r.prefill_load_scale);
      out.router_temperature = String(r.router_temperature);
      if (d.backend_deployment.kv_offload.num_g2_blocks > 0) {
        out.host_cache_hit_weight = String(r.host_cache_hit_weight);
        out.disk_cache_hit_weight = String(r.disk_cache_hit_weight);
      }
    }
    const p = d.planner;
    out.planner = p.active ? policyLabel(p.scaling_policy) : p.inactive_reason ? `${policyLabel(p.scaling_policy)} (inactive)` : 'static';
    if (p.active) {
      out.fpm_sampling = `${p.max_num_fpm_samples}/${p.fpm_sample_bucket_size}`;
      out.load_sensitivity = `${p.load_scaling_down_sensitivity}/${p.load_min_observations}`;
      if (p.enable_throughput_scaling) out.load_predictor = p.load_predictor;
    }
  } else {
    // A result without recorded deployments: the searched knobs as the candidate records them.
    for (const [k, v] of Object.entries(row.config.engine)) out[k] = String(v);
    for (const [provider, sel] of Object.entries(row.config.adapters))
      for (const [k, v] of Object.entries(sel)) out[`${provider.replace(/^dynamo\./, '')}.${k}`] = typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  if (row.config.kv_load_ratio !== undefined) out.kv_load_ratio = String(Number(row.config.kv_load_ratio.toPrecision(3)));
  if (row.concurrency !== null) out.concurrency = String(row.concurrency);
  return out;
}

/** The view's candidates in order, equivalent replays folded into the first one. */
export function listedGroups(result: SweepResult, ids: readonly string[]): ListedGroup[] {
  const byId = new Map(result.candidates.map((c) => [c.id, c]));
  const groups: { row: CandidateRow; equivalent: CandidateRow[] }[] = [];
  const byKey = new Map<string, (typeof groups)[number]>();
  for (const id of ids) {
    const row = byId.get(id);
    if (!row) continue;
    const key = replayKey(row);
    const g = byKey.get(key);
    if (g) g.equivalent.push(row);
    else {
      const fresh = { row, equivalent: [] };
      byKey.set(key, fresh);
      groups.push(fresh);
    }
  }
  const settings = groups.map((g) => settingsOf(g.row));
  const names = [...new Set(settings.flatMap((s) => Object.keys(s)))];
  // Differs: two listed lines that have the setting disagree on it (an agg line has no prefill knobs).
  const differs = names.filter((n) => new Set(settings.filter((s) => n in s).map((s) => s[n])).size > 1);
  // A setting a line does not have (KV-router weights under round-robin) is implied by the others.
  return groups.map((g, i) => ({ ...g, differing: differs.filter((n) => n in settings[i]).map((n) => [n, settings[i][n]] as [string, string]) }));
}

/** "+2 equivalent: candidate-000015 (agg.max_num_seqs=256), …" — what each differs in from the line's own (empty when alone). */
export function equivalentLabel(g: ListedGroup): string {
  if (!g.equivalent.length) return '';
  const own = settingsOf(g.row);
  const each = g.equivalent.map((r) => {
    const s = settingsOf(r);
    const diff = Object.keys({ ...own, ...s }).filter((k) => own[k] !== s[k]).map((k) => `${k}=${s[k] ?? '—'}`);
    return diff.length ? `${r.id} (${diff.join(', ')})` : r.id;
  });
  return `+${g.equivalent.length} equivalent: ${each.join(', ')}`;
}
