// Rows of e2e/silicon_dev.csv whose parallel columns carry the GPU count squared (e2eCases.ts
// `deployedShape`): the same measurement appears under both encodings. Both loaders — the
// steady-state cases and the replay harness's rows — read the deployment that was measured.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deployedShape, loadE2eCases, measuredAggShape, parallelLabelOf } from '../../src/hardware/perf/e2eCases.js';
import { perfdbDir, readRooflineRef } from '../../src/hardware/perf/perfdbTables.js';
import { loadE2eRows } from '../../src/calibration/rows.js';

describe('deployedShape', () => {
  it('reads tpN_epN rows (moe_tp = moe_ep = N, tp·dp = N²) as N GPUs with EP over the experts', () => {
    expect(deployedShape({ tp: 64, pp: 1, attention_dp: 1, moe_tp: 8, moe_ep: 8 })).toEqual({ tp: 8, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 8 });
    expect(deployedShape({ tp: 1, pp: 1, attention_dp: 16, moe_tp: 4, moe_ep: 4 })).toEqual({ tp: 1, pp: 1, attention_dp: 4, moe_tp: 1, moe_ep: 4 });
    expect(deployedShape({ tp: 4, pp: 1, attention_dp: 4, moe_tp: 1, moe_ep: 16 })).toEqual({ tp: 4, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 4 });
  });
  it('keeps consistent shapes', () => {
    for (const s of [
      { tp: 8, pp: 1, attention_dp: 1, moe_tp: 8, moe_ep: 1 },
      { tp: 8, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 8 },
      { tp: 1, pp: 1, attention_dp: 8, moe_tp: 1, moe_ep: 8 },
      { tp: 8, pp: 1, attention_dp: 1, moe_tp: 2, moe_ep: 4 },
      { tp: 1, pp: 1, attention_dp: 4, moe_tp: 1, moe_ep: 4 },
    ]) expect(deployedShape(s)).toEqual(s);
  });
  it('reads tpN_epnone rows as the N-GPU engine their columns write, even when moe_tp × moe_ep = tp', () => {
    expect(parallelLabelOf('m_b200_sxm_trtllm_agg_4000x1000_c224_tp4_epnone_1')).toEqual({ tp: 4, ep: 'none' });
    expect(parallelLabelOf('m_h200_sxm_trtllm_agg_1024x1024_c64_tp8_0_ep8_3')).toEqual({ tp: 8, ep: 8 });
    expect(parallelLabelOf('m_fp8_agg_8192x1024_c128_cfg615')).toBeUndefined();
    const four = { tp: 4, pp: 1, attention_dp: 1, moe_tp: 2, moe_ep: 2 };
    expect(deployedShape(four, { tp: 4, ep: 'none' })).toEqual(four);
    const sixteen = { tp: 16, pp: 1, attention_dp: 1, moe_tp: 4, moe_ep: 4 };
    expect(deployedShape(sixteen, { tp: 16, ep: 'none' })).toEqual(sixteen);
    // The label travels with the CSV row: a tpN_epnone row keeps N GPUs, a tpN_epN twin is unsquared.
    const row = (id: string) => ({ id, tp_size: '4', pp_size: '1', attention_dp_size: '', moe_tp_size: '2', moe_ep_size: '2' });
    expect(measuredAggShape(row('x_agg_1024x1024_c8_tp4_epnone_1'))).toEqual(four);
    expect(measuredAggShape(row('x_agg_1024x1024_c8_tp2_ep2_1'))).toEqual({ tp: 2, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 2 });
  });
  it.skipIf(!existsSync(perfdbDir()))('leaves no agg row beyond one 8-GPU node', () => {
    const { cases } = loadE2eCases(perfdbDir());
    expect(cases.filter((c) => c.shape.tp * c.shape.pp * c.shape.attention_dp > 8).map((c) => c.id)).toEqual([]);
    const dir = perfdbDir();
    const { rows } = loadE2eRows(dir, (sku) => Boolean(readRooflineRef(dir, sku).flops.fp4));
    const agg = rows.flatMap((r) => (r.mode === 'agg' ? [r] : []));
    expect(agg.length).toBeGreaterThan(900);
    expect(agg.filter((r) => r.group.tp * r.group.pp * r.group.attention_dp > 8).map((r) => r.id)).toEqual([]);
  });
});
