// `spica explain <config> [--json]`: per deployment_mode branch, what is searched (name, kind,
// values), what is pinned, what was dropped and by which rule, what each kept composite preset
// expands to, and the load-predictor candidates.
import type { Command, CommandIo } from '../command.js';
import {
  compositeLabel,
  expandFpmSampling,
  expandLoadSensitivity,
  expandScalingPolicy,
  type FpmSampling,
  type LoadSensitivity,
  type ScalingPolicy,
} from '../../config/composites.js';
import type { SmartSearchConfig } from '../../config/schema.js';
import type { LoadPredictorSweepResult } from '../../forecast/subSweep.js';
import { PLANNER_PREFIX, planBranchDimensions, type BranchDimensions } from '../../search/dimensions.js';
import { PLANNER_PROVIDER, type PlannerState } from '../../search/providers/plannerProvider.js';
import { latentDimensions } from '../../search/sweepPlan.js';
import { planLoadPredictor } from '../../search/loadPredictorPlan.js';
import type { Backend } from '../../model/arch.js';
import { resolveModel } from '../../model/catalog.js';
import { defaultKvCacheDtype, indexerBytesPerTokenPerLayer } from '../../model/kv-cache.js';
import { architectureClassOf } from '../../model/architecture-class.js';
import { loadCoefficients, replayCorrections } from '../../hardware/perf/coefficients.js';
import { describeGoal, describeWorkload, loadAndPlan } from './validate.js';

const usage = `Usage: spica explain <config.yaml> [--json] [options]

Show each deployment_mode branch of a config: searched dimensions (name, kind, values), pinned
values (including the latent parallel features of each branch's pool), dropped dimensions with
the rule that dropped them, what each kept composite preset expands to, the load-predictor
candidates and the forecast-loss sub-sweep's winner per throughput interval. The pool itself is
listed by \`spica configs\`; \`spica project\` maps latent features onto it.

Options:
  --json              print one JSON document on stdout
  --systems-dir DIR   directory of <hardware_sku>.yaml system files (default: the repository's systems/)
`;

interface Composites {
  scaling_policy: Record<string, ScalingPolicy>;
  fpm_sampling: Record<string, FpmSampling>;
  load_sensitivity: Record<string, LoadSensitivity>;
}

/** Expansions of the composite entries that survived pruning in this branch. */
function keptComposites(config: SmartSearchConfig, b: BranchDimensions): Composites {
  const alive = (knob: string) => !b.dropped.some((d) => d.name === `${PLANNER_PREFIX}${knob}`);
  const s = config.search_space;
  return {
    scaling_policy: Object.fromEntries(b.scaling_policies.map((e) => [compositeLabel(e), expandScalingPolicy(e)])),
    fpm_sampling: alive('fpm_sampling') ? Object.fromEntries(s.planner_fpm_sampling.map((e) => [compositeLabel(e), expandFpmSampling(e)])) : {},
    load_sensitivity: alive('load_sensitivity')
      ? Object.fromEntries(s.planner_load_sensitivity.map((e) => [compositeLabel(e), expandLoadSensitivity(e)]))
      : {},
  };
}

/**
 * Engine settings the config leaves unset, as each backend of the branch runs them (what the replay
 * simulates and the deploy files write): today the KV-cache dtype, whose default depends on the
 * backend and the checkpoint (defaultKvCacheDtype: TRT-LLM on a ModelOpt FP8/NVFP4 checkpoint runs an
 * FP8 KV cache). Empty when the config names every one.
 */
function engineDefaults(config: SmartSearchConfig, b: BranchDimensions): { kv_cache_dtype?: Record<string, string> } {
  const s = config.search_space;
  if (s.kv_cache_dtype !== undefined) return {};
  const model = resolveModel(s.model_name);
  const quant = s.quantization ?? model.weightQuant;
  return { kv_cache_dtype: Object.fromEntries(b.backends.map((be) => [be, defaultKvCacheDtype(model, be as Backend, quant)])) };
}

/**
 * The model's facts the perf model composes beyond the plain attention kinds (the same in every branch:
 * `model_facts`): today DeepSeek Sparse
 * Attention (DeepSeek-V3.2, GLM-5), which the perf DB has no tables for, so the approximation the pass
 * model makes of it (src/hardware/perf/engine.ts) is spelled out where a user looks.
 */
function modelFacts(config: SmartSearchConfig) {
  const model = resolveModel(config.search_space.model_name);
  const d = model.sparseAttention;
  const indexerBytes = d ? indexerBytesPerTokenPerLayer(model) : 0;
  return {
    id: model.id,
    architecture_class: architectureClassOf(model),
    sparse_attention: d
      ? {
          kind: 'deepseek_sparse_attention',
          index_heads: d.indexHeads,
          index_head_dim: d.indexHeadDim,
          index_topk: d.topK,
          indexer_cache_bytes_per_token_per_layer: indexerBytes,
          modelled_as:
            'composed from the perf DB (no DSA tables): indexer projections as GEMMs (replicated on every TP rank), ' +
            'its scoring over the whole context as the measured MQA attention curve (index heads over one FP8 key head, ' +
            'at half the head width: the FLOPs and bytes of keys without values) plus the fp32 logits written and read by top-k; ' +
            `the MLA then attends min(context, ${d.topK}) tokens (decode) / at most ${d.topK} keys per query (prefill longer than ${d.topK}, ` +
            'on kernel-only MLA tables as the absorbed decode kernel over the new tokens with heads padded to 64 on Hopper, 128 on Blackwell); ' +
            `the indexer's FP8 keys (${indexerBytes} B per token per layer) count in the KV budget`,
        }
      : null,
  };
}

/** The fitted replay corrections one backend's engines run with in this branch (coefficients.ts). */
interface ReplayCalibration {
  pass_scale: number;
  prefill_scale: number;
  /** Engine passes a request waits on a busy rank before its first scheduling (rank-scheduler.ts). */
  admission_lag_passes: number;
  /** The frontend's fixed latency, ms. */
  frontend_ms: number;
}

/**
 * Per backend of the branch, the replay corrections its coefficient file applies to this model's
 * architecture class (`overhead.replay`, fitted by `npm run calibrate`): what the replay adds to the
 * pass model, so a user sees the admission lag and frontend latency behind a TTFT. Backends without
 * a coefficient file (or without a replay block) are left out.
 */
function replayCalibration(config: SmartSearchConfig, b: BranchDimensions): Record<string, ReplayCalibration> {
  const s = config.search_space;
  const arch = architectureClassOf(resolveModel(s.model_name));
  const out: Record<string, ReplayCalibration> = {};
  for (const be of b.backends) {
    let rc;
    try {
      rc = loadCoefficients(s.hardware_sku, be as Backend).file.overhead.replay;
    } catch {
      continue; // NoPerfDatabase: the preflight reports it where it matters
    }
    if (!rc) continue;
    const c = replayCorrections(rc, b.deployment_mode as 'agg' | 'disagg', arch);
    out[be] = { pass_scale: c.passScale, prefill_scale: c.prefillScale, admission_lag_passes: c.admissionLagPasses, frontend_ms: c.admissionMs };
  }
  return out;
}

export function explainJson(
  config: SmartSearchConfig,
  branches: BranchDimensions[],
  warnings: string[],
  subSweep: LoadPredictorSweepResult | null = null,
) {
  const model = modelFacts(config);
  return {
    branches: branches.map((b) => {
      const lp = planLoadPredictor(config, b);
      return {
        deployment_mode: b.deployment_mode,
        backends: b.backends,
        dimensions: b.dimensions.map((d) => ({ name: d.name, kind: d.kind, values: d.values, ...(d.log_scale ? { log_scale: true } : {}) })),
        pinned: b.pinned,
        dropped: b.dropped,
        composites: keptComposites(config, b),
        model_facts: model,
        engine_defaults: engineDefaults(config, b),
        replay_calibration: replayCalibration(config, b),
        load_predictor: {
          reason: lp.reason,
          intervals_seconds: lp.intervals_seconds,
          candidates: lp.candidates.map((c) => ({ label: c.label, ...c.spec })),
          // The forecast-loss sub-sweep: winner and loss of every candidate per interval (null: not run).
          sub_sweep: lp.reason === 'no_throughput_scaling_candidate' ? null : subSweep,
        },
      };
    }),
    warnings,
  };
}

const fmt = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

function explainText(path: string, config: SmartSearchConfig, doc: ReturnType<typeof explainJson>): string {
  const model = modelFacts(config);
  const out: string[] = [`${path}`, `  model:    ${model.id} (${model.architecture_class})`];
  const dsa = model.sparse_attention;
  if (dsa) {
    out.push(
      `    sparse attention (DSA): indexer ${dsa.index_heads} heads x ${dsa.index_head_dim}, top-${dsa.index_topk} tokens, ` +
        `indexer cache ${dsa.indexer_cache_bytes_per_token_per_layer} B/token/layer`,
      `    modelled as: ${dsa.modelled_as}`,
    );
  }
  out.push(`  workload: ${describeWorkload(config)}`, `  goal:     ${describeGoal(config)}`, '');
  for (const b of doc.branches) {
    out.push(`branch ${b.deployment_mode} (backends: ${b.backends.join(', ')})`);
    out.push(`  searched (${b.dimensions.length}):`);
    for (const d of b.dimensions)
      out.push(`    ${d.name}  ${d.kind}${'log_scale' in d ? ', log scale' : ''}  ${d.kind === 'continuous' ? `[${d.values.join(', ')}]` : `{${d.values.map(fmt).join(', ')}}`}`);
    out.push('  pinned:');
    for (const [k, v] of Object.entries(b.pinned)) out.push(`    ${k} = ${fmt(v)}`);
    const kv = b.engine_defaults.kv_cache_dtype;
    if (kv) out.push(`    kv_cache_dtype (unset: each backend's default for this checkpoint) = ${Object.entries(kv).map(([be, d]) => `${be} ${d}`).join(', ')}`);
    const cal = Object.entries(b.replay_calibration);
    if (cal.length > 0) {
      out.push('  replay calibration (systems/coefficients, fitted):');
      for (const [be, c] of cal)
        out.push(`    ${be}: pass time x${c.pass_scale}, prefill x${c.prefill_scale}, admission lag ${c.admission_lag_passes} passes, frontend ${c.frontend_ms} ms`);
    }
    out.push(`  dropped (${b.dropped.length}):`);
    for (const d of b.dropped) out.push(`    ${d.name}: ${d.rule}`);
    out.push('  composite expansions:');
    for (const [knob, table] of Object.entries(b.composites))
      for (const [label, fields] of Object.entries(table)) out.push(`    ${knob} ${label} -> ${JSON.stringify(fields)}`);
    const lp = b.load_predictor;
    out.push(`  load predictor: ${lp.reason}${lp.intervals_seconds.length ? ` (intervals ${lp.intervals_seconds.join(', ')} s)` : ''}`);
    for (const c of lp.candidates) {
      const { label, ...spec } = c;
      out.push(`    ${label} -> ${JSON.stringify(spec)}`);
    }
    for (const r of lp.sub_sweep?.per_interval ?? []) {
      const losses = r.losses.map((l) => `${l.id}=${l.loss === null ? '-' : l.loss.toFixed(4)}`).join(', ');
      out.push(`    sub-sweep @${r.interval_seconds}s: winner ${r.winner} (${r.scored_windows}/${r.windows} windows scored${r.fallback_reason ? `, ${r.fallback_reason}` : ''}) ${losses}`);
    }
    out.push('');
  }
  for (const w of doc.warnings) out.push(`warning: ${w}`);
  return `${out.join('\n').trimEnd()}\n`;
}

async function run(argv: string[], io: CommandIo): Promise<number> {
  // loadAndPlan ran the sweep's preflight: a config explain shows is one the sweep accepts.
  const { path, config, plan: base, sweep, trace, flags } = loadAndPlan(argv, { json: { type: 'boolean' } });
  const warnings = [...base.warnings, ...sweep.warnings];
  const parallel = latentDimensions(sweep.branches.map((b) => b.pool)).dimensions;
  const plan = planBranchDimensions(config, parallel, { traceRequests: trace.traceRequests });
  const planner = plan.providers.find((p) => p.provider === PLANNER_PROVIDER)?.state as PlannerState | undefined;
  const doc = explainJson(config, plan.branches, [...new Set([...warnings, ...plan.warnings])], planner?.loadPredictor ?? null);
  if (flags.json) io.stdout(`${JSON.stringify(doc, null, 2)}\n`);
  else io.stdout(explainText(path, config, doc));
  return 0;
}

export const command: Command = {
  name: 'explain',
  summary: 'show each deployment_mode branch: searched, pinned and dropped dimensions',
  usage,
  run,
};
