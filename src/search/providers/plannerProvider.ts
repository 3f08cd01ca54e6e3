// Built-in provider `dynamo.planner`: the planner composites (scaling policy, FPM sampling, load
// sensitivity) and the load predictor, whose forecast-loss sub-sweep runs here, outside the optimizer
// (dynamo-facts §6). The goal decides which scaling policies survive (seed "How the sweep uses these").
import {
  compositeLabel,
  enablesAnyScaling,
  enablesThroughputScaling,
  expandFpmSampling,
  expandLoadPredictor,
  expandLoadSensitivity,
  expandScalingPolicy,
  LOAD_PREDICTOR_PRESETS,
  type FpmSamplingEntry,
  type LoadPredictorSpec,
  type LoadSensitivityEntry,
  type ScalingPolicyEntry,
} from '../../config/composites.js';
import { filterScalingPolicies, plannerOptimizationTarget } from '../../config/scalingPolicyFilter.js';
import { FALLBACK_LOAD_PREDICTOR, sweepLoadPredictors, type LoadPredictorSweepResult } from '../../forecast/subSweep.js';
import type { TraceRequest } from '../../forecast/window.js';
import type { DimensionValue } from '../optimizer/space.js';
import { emptyBranchSpace, listKnob, type AdapterSearchPlan, type SweepConfigProvider, type SweepContext } from './provider.js';

export const PLANNER_PROVIDER = 'dynamo.planner';

export interface PlannerState {
  /** planner_scaling_policy entries kept after goal filtering, in config order. */
  policies: ScalingPolicyEntry[];
  /** Composite label → entry, for turning a selection back into the configured entry. */
  policyByLabel: Record<string, ScalingPolicyEntry>;
  fpmByLabel: Record<string, FpmSamplingEntry>;
  sensitivityByLabel: Record<string, LoadSensitivityEntry>;
  /** The sub-sweep's outcome; null when the trace was not loaded (e.g. `spica validate`). */
  loadPredictor: LoadPredictorSweepResult | null;
  /** Winner per throughput interval (seconds, as a string key). */
  predictorByInterval: Record<string, { label: string; spec: LoadPredictorSpec }>;
}

export interface PlannerContext extends SweepContext {
  /** The trace's requests for the load-predictor sub-sweep; absent = not loaded. */
  traceRequests?: readonly TraceRequest[];
}

const FALLBACK = { label: FALLBACK_LOAD_PREDICTOR, spec: { ...LOAD_PREDICTOR_PRESETS.constant_last } as LoadPredictorSpec };

function byLabel<T extends string | Record<string, unknown>>(entries: readonly T[]): Record<string, T> {
  return Object.fromEntries(entries.map((e) => [compositeLabel(e), e]));
}

export const plannerProvider: SweepConfigProvider<PlannerState> & {
  generateSearchSpace(ctx: PlannerContext): AdapterSearchPlan<PlannerState>;
} = {
  name: PLANNER_PROVIDER,
  generateSearchSpace(ctx: PlannerContext): AdapterSearchPlan<PlannerState> {
    const { config } = ctx;
    const s = config.search_space;
    const space = emptyBranchSpace();
    const { kept, dropped } = filterScalingPolicies(s.planner_scaling_policy, config.goal);
    for (const d of dropped) space.dropped.push({ name: `scaling_policy=${d.label}`, rule: d.rule });
    listKnob(space, 'scaling_policy', kept.map(compositeLabel), 'categorical');
    const scales = kept.some(enablesAnyScaling);
    for (const [knob, entries] of [
      ['fpm_sampling', s.planner_fpm_sampling],
      ['load_sensitivity', s.planner_load_sensitivity],
    ] as const) {
      if (!scales) space.dropped.push({ name: knob, rule: 'no kept planner_scaling_policy enables scaling (planner off): FPM sampling and load sensitivity are unused' });
      else listKnob(space, knob, entries.map((e) => compositeLabel(e)), 'categorical');
    }

    // Forecast-loss sub-sweep over every distinct throughput interval of the kept policies.
    const intervals = [
      ...new Set(
        kept
          .filter(enablesThroughputScaling)
          .map((p) => expandScalingPolicy(p).throughput_adjustment_interval_seconds)
          .filter((x): x is number => x !== null),
      ),
    ].sort((a, b) => a - b);
    const candidates = s.load_predictor_candidates.map((e) => ({ id: compositeLabel(e), spec: expandLoadPredictor(e) }));
    const isStatic = config.workload.trace_path === undefined;
    const loadPredictor =
      isStatic || ctx.traceRequests !== undefined || intervals.length === 0
        ? sweepLoadPredictors({
            requests: ctx.traceRequests ?? [],
            static_workload: isStatic,
            throughput_intervals_seconds: intervals,
            candidates: candidates as Parameters<typeof sweepLoadPredictors>[0]['candidates'],
          })
        : null;
    const predictorByInterval: PlannerState['predictorByInterval'] = {};
    for (const r of loadPredictor?.per_interval ?? []) {
      const c = candidates.find((x) => x.id === r.winner);
      predictorByInterval[String(r.interval_seconds)] = c ? { label: c.id, spec: c.spec } : FALLBACK;
    }

    const copy = () => ({ dimensions: space.dimensions.map((d) => ({ ...d, values: [...d.values] })), pinned: { ...space.pinned }, dropped: [...space.dropped] });
    return {
      provider: PLANNER_PROVIDER,
      branches: { agg: copy(), disagg: copy() },
      state: {
        policies: kept,
        policyByLabel: byLabel(kept),
        fpmByLabel: byLabel(s.planner_fpm_sampling),
        sensitivityByLabel: byLabel(s.planner_load_sensitivity),
        loadPredictor,
        predictorByInterval,
      },
      diagnostics: loadPredictor === null ? ['load-predictor sub-sweep not run: the trace was not loaded'] : [],
      potential_runtime_hooks: [{ provider: PLANNER_PROVIDER, kind: 'scaling_policy', api_version: 1 }],
    };
  },
  materializeReplay(plan, selection: Record<string, DimensionValue>, ctx) {
    const st = plan.state;
    const entry = st.policyByLabel[String(selection.scaling_policy)];
    if (entry === undefined) throw new Error(`scaling policy '${String(selection.scaling_policy)}' is not among the kept policies`);
    const policy = expandScalingPolicy(entry);
    const config: Record<string, unknown> = {
      planner_scaling_policy: entry,
      scaling_policy: policy,
      optimization_target: plannerOptimizationTarget(ctx.config.goal),
    };
    if (enablesAnyScaling(entry)) {
      const fpm = st.fpmByLabel[String(selection.fpm_sampling)];
      const sens = st.sensitivityByLabel[String(selection.load_sensitivity)];
      if (fpm === undefined || sens === undefined) throw new Error('planner composite selection is not in the config');
      config.planner_fpm_sampling = fpm;
      config.planner_load_sensitivity = sens;
      config.fpm_sampling = expandFpmSampling(fpm);
      config.load_sensitivity = expandLoadSensitivity(sens);
    }
    if (enablesThroughputScaling(entry)) {
      const winner = st.predictorByInterval[String(policy.throughput_adjustment_interval_seconds)] ?? FALLBACK;
      config.load_predictor = winner.label;
      config.load_predictor_spec = winner.spec;
    }
    const hooks = enablesAnyScaling(entry)
      ? [{ provider: PLANNER_PROVIDER, kind: 'scaling_policy', api_version: 1, config: { planner_config: { ...config } } }]
      : [];
    return { config, runtime_hooks: hooks };
  },
};
