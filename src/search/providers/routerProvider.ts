// Built-in provider `dynamo.router`: router mode and the KV-router weights (seed "Router").
// KV-router weights are dead under round_robin; host/disk cache-hit weights are dead without G2, and
// the disk weight is dead even with G2: the simulator has no disk (G3) tier, so no block is ever on
// disk and the weight cannot change a replay. It is pinned (first listed value), never searched.
import { KV_ROUTER_KNOBS, OFFLOAD_WEIGHT_KNOBS } from '../../config/choices.js';
import type { DimensionValue } from '../optimizer/space.js';
import { emptyBranchSpace, listKnob, type AdapterSearchPlan, type SweepConfigProvider } from './provider.js';

export const ROUTER_PROVIDER = 'dynamo.router';

export const routerProvider: SweepConfigProvider<null> = {
  name: ROUTER_PROVIDER,
  generateSearchSpace({ config }): AdapterSearchPlan<null> {
    const s = config.search_space;
    const space = emptyBranchSpace();
    listKnob(space, 'router_mode', s.router_mode, 'categorical');
    const kvRouter = s.router_mode.includes('kv_router');
    for (const knob of KV_ROUTER_KNOBS) {
      if (!kvRouter) space.dropped.push({ name: knob, rule: 'router_mode has no kv_router: KV-router weights are ignored under round_robin' });
      else if ((OFFLOAD_WEIGHT_KNOBS as readonly string[]).includes(knob) && s.num_g2_blocks === 0)
        space.dropped.push({ name: knob, rule: 'num_g2_blocks is 0: with host offload off there are no host/disk blocks to weight' });
      else if (knob === 'disk_cache_hit_weight' && s[knob].length > 1) {
        space.pinned[knob] = s[knob][0];
        space.dropped.push({ name: knob, rule: `no disk (G3) tier is simulated, so no block is on disk and the weight cannot change a replay: pinned to its first value ${s[knob][0]}, not searched` });
      } else listKnob(space, knob, s[knob], 'discrete');
    }
    // The router is the same for both branches.
    const copy = () => ({ dimensions: space.dimensions.map((d) => ({ ...d, values: [...d.values] })), pinned: { ...space.pinned }, dropped: [...space.dropped] });
    return {
      provider: ROUTER_PROVIDER,
      branches: { agg: copy(), disagg: copy() },
      state: null,
      diagnostics: [],
      potential_runtime_hooks: [{ provider: ROUTER_PROVIDER, kind: 'placement_policy', api_version: 1 }],
    };
  },
  materializeReplay(_plan, selection: Record<string, DimensionValue>) {
    const config: Record<string, unknown> = { router_mode: selection.router_mode };
    // Under round_robin the weights are dead: leaving them out keeps them from splitting the cache key.
    if (selection.router_mode === 'kv_router') {
      for (const knob of KV_ROUTER_KNOBS) if (knob in selection) config[knob] = selection[knob];
    }
    return {
      config,
      runtime_hooks: [{ provider: ROUTER_PROVIDER, kind: 'placement_policy', api_version: 1, config: { ...config } }],
    };
  },
};
