// Rows of e2e/silicon_dev.csv whose parallel columns carry the GPU count squared (e2eCases.ts
// `deployedShape`): the same measurement appears under both encodings. Both loaders — the
// steady-state cases and the replay harness's rows — read the deployment that was measured.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deployedShape, loadE2eCases } from '../../src/hardware/perf/e2eCases.js';
import { perfdbDir, readRooflineRef } from '../../src/hardware/perf/perfdbTables.js';
import { loadE2eRows } from '../../src/replay/accuracy/rows.js';

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
