import { describe, expect, it } from 'vitest';
import {
  enumerateAgg,
  enumerateBranch,
  enumerateDisagg,
  enumerateShapes,
  planBranches,
  scannedShapes,
} from '../../src/parallel/enumerate.js';
import { NoViableParallelConfig } from '../../src/errors.js';
import type { DisaggParallelConfig, WorkerGroup } from '../../src/parallel/shape.js';
import { strategyOf, usedGpus } from '../../src/parallel/shape.js';
import { compareConfigs } from '../../src/parallel/pool.js';
import { ampleKv, denseFacts, hugeMoeFacts, moeFacts, tpBoundKv } from './fixtures.js';

const dense = (gpuBudget: number, minGpuBudget?: number) => ({ facts: denseFacts, kvTokensPerRank: ampleKv, gpuBudget, minGpuBudget });
const moe = (gpuBudget: number) => ({ facts: moeFacts, kvTokensPerRank: ampleKv, gpuBudget });

describe('enumerateShapes', () => {
  it('dense models use plain TP over the ladder capped at the budget', () => {
    const { feasible, pruned } = enumerateShapes(dense(8), 'vllm', 'agg');
    expect(feasible.map((f) => f.shape.tp)).toEqual([1, 2, 4, 8]);
    expect(feasible.every((f) => f.shape.attention_dp === 1 && f.shape.moe_tp === 1 && f.shape.moe_ep === 1 && f.shape.pp === 1)).toBe(true);
    expect(pruned).toEqual([]);
    expect(enumerateShapes(dense(3), 'vllm', 'agg').feasible.map((f) => f.shape.tp)).toEqual([1, 2]);
  });

  it('a dense 16-GPU worker does not fit an 8-GPU node', () => {
    const { feasible, pruned } = enumerateShapes(dense(32), 'vllm', 'agg');
    expect(feasible.map((f) => f.shape.tp)).toEqual([1, 2, 4, 8]);
    expect(pruned).toMatchObject([{ shape: { tp: 16 }, reason: 'node_size' }]);
  });

  it('MoE keeps exactly the TEP, DEP, TP and DTP patterns (all-ones at one GPU)', () => {
    const { feasible, pruned } = enumerateShapes(moe(8), 'vllm', 'agg');
    const strategies = feasible.map((f) => `${f.shape.tp * f.shape.attention_dp}:${strategyOf(f.shape)}`).sort();
    expect(strategies).toEqual(
      ['1:tp', '2:dep', '2:dtp', '2:tep', '2:tp', '4:dep', '4:dtp', '4:tep', '4:tp', '8:dep', '8:dtp', '8:tep', '8:tp'].sort(),
    );
    for (const f of feasible) expect(f.shape.tp * f.shape.attention_dp).toBe(f.shape.moe_tp * f.shape.moe_ep);
    expect(pruned.length).toBeGreaterThan(0);
    expect(pruned.every((p) => p.reason === 'pattern')).toBe(true);
    // Every scanned shape is either kept or pruned with a reason.
    expect(feasible.length + pruned.length).toBe(scannedShapes(true, 8).length);
  });

  it('sglang keeps MoE tensor parallelism (TP and DTP) unless the model needs multi-node wide-EP', () => {
    const { feasible, pruned } = enumerateShapes(moe(8), 'sglang', 'agg');
    expect(new Set(feasible.map((f) => strategyOf(f.shape)))).toEqual(new Set(['tp', 'tep', 'dep', 'dtp']));
    expect(pruned.some((p) => p.reason === 'backend_filter:sglang')).toBe(false);
    // Under wide-EP SGLang runs its EP-only MoE backends: every MoE-TP shape is filtered.
    const wide = enumerateShapes({ facts: hugeMoeFacts, kvTokensPerRank: ampleKv, gpuBudget: 16 }, 'sglang', 'agg');
    expect(wide.feasible.every((f) => f.shape.moe_tp === 1 || f.shape.moe_ep === 1 && f.shape.tp * f.shape.attention_dp === 1)).toBe(true);
    expect(new Set(wide.pruned.filter((p) => p.reason === 'backend_filter:sglang').map((p) => strategyOf(p.shape)))).toEqual(new Set(['tp', 'dtp']));
  });

  it('multi-node wide-EP admits 16-GPU EP workers only', () => {
    const narrow = enumerateShapes(moe(16), 'vllm', 'agg');
    expect(narrow.feasible.every((f) => f.shape.tp * f.shape.attention_dp <= 8)).toBe(true);
    expect(narrow.pruned.filter((p) => p.reason === 'node_size')).toHaveLength(4);
    const wide = enumerateShapes({ facts: hugeMoeFacts, kvTokensPerRank: ampleKv, gpuBudget: 16 }, 'vllm', 'agg');
    const big = wide.feasible.filter((f) => f.shape.tp * f.shape.attention_dp === 16).map((f) => strategyOf(f.shape));
    expect(big.sort()).toEqual(['dep', 'tep']);
  });

  it('prunes shapes whose per-rank KV capacity does not exceed max_seq_len', () => {
    const { feasible, pruned } = enumerateShapes({ facts: denseFacts, kvTokensPerRank: tpBoundKv, gpuBudget: 8 }, 'vllm', 'agg');
    expect(feasible.map((f) => f.shape.tp)).toEqual([2, 4, 8]);
    expect(pruned).toMatchObject([{ shape: { tp: 1 }, reason: 'kv_capacity' }]);
    // For MoE, DEP/DTP ranks are tp = 1 and fall out while TEP/TP survive at the same GPU count.
    const m = enumerateShapes({ facts: moeFacts, kvTokensPerRank: tpBoundKv, gpuBudget: 8 }, 'vllm', 'agg');
    expect(new Set(m.feasible.map((f) => strategyOf(f.shape)))).toEqual(new Set(['tep', 'tp']));
  });
});

describe('enumerateAgg replicas', () => {
  it('fills 1..budget/g replicas within [min_gpu_budget, gpu_budget]', () => {
    const { members } = enumerateAgg(dense(8, 6), 'vllm');
    const pairs = members.map((m) => {
      const c = m.config as WorkerGroup;
      return `${c.tp}x${c.replicas}`;
    });
    expect(pairs).toEqual(['1x6', '1x7', '1x8', '2x3', '2x4', '4x2', '8x1']);
    expect(members.every((m) => usedGpus(m.config) >= 6 && usedGpus(m.config) <= 8)).toBe(true);
  });

  it('reports a shape with no fitting replica count', () => {
    const { members, pruned } = enumerateAgg({ facts: hugeMoeFacts, kvTokensPerRank: ampleKv, gpuBudget: 24, minGpuBudget: 20 }, 'vllm');
    expect(members.some((m) => (m.config as WorkerGroup).tp * (m.config as WorkerGroup).attention_dp === 16)).toBe(false);
    expect(pruned.filter((p) => p.reason === 'replicas').map((p) => strategyOf(p.shape)).sort()).toEqual(['dep', 'tep']);
  });

  it('rejects an inconsistent budget', () => {
    expect(() => enumerateAgg(dense(4, 5), 'vllm')).toThrow(/min_gpu_budget/);
  });
});

describe('enumerateDisagg', () => {
  it('pairs independent prefill and decode groups that fit the budget', () => {
    const { members } = enumerateDisagg(dense(4), 'vllm');
    // Groups per role (GPUs): 1×1, 1×2, 1×3, 2×1 → pairs with total ≤ 4.
    expect(members).toHaveLength(11);
    expect(members.every((m) => usedGpus(m.config) <= 4)).toBe(true);
    const withMin = enumerateDisagg(dense(4, 4), 'vllm').members;
    expect(withMin).toHaveLength(6);
    expect(withMin.every((m) => usedGpus(m.config) === 4)).toBe(true);
  });

  it('checks KV per role', () => {
    // Decode ranks need tp ≥ 4; prefill is unconstrained.
    const kv = (s: { tp: number }, _b: string, role: string) => (role === 'decode' ? 3_000 * s.tp : 1e9);
    const { members, pruned } = enumerateDisagg({ facts: denseFacts, kvTokensPerRank: kv, gpuBudget: 8 }, 'vllm');
    expect(members.every((m) => (m.config as DisaggParallelConfig).decode.tp >= 4)).toBe(true);
    expect(members.some((m) => (m.config as DisaggParallelConfig).prefill.tp === 1)).toBe(true);
    expect(pruned.every((p) => p.role === 'decode' && p.reason === 'kv_capacity')).toBe(true);
  });

  it('yields nothing for trtllm', () => {
    expect(enumerateDisagg(dense(8), 'trtllm').members).toEqual([]);
  });
});

describe('enumerateBranch', () => {
  it('unions backends, annotating each config with the backends it is legal for', () => {
    const b = enumerateBranch(moe(8), 'agg', ['sglang', 'vllm', 'trtllm']);
    expect(b.backends).toEqual(['vllm', 'sglang', 'trtllm']);
    const tpMember = b.members.find((m) => strategyOf(m.config as WorkerGroup) === 'tp' && (m.config as WorkerGroup).tp === 4);
    expect(tpMember?.backends).toEqual(['vllm', 'sglang', 'trtllm']);
    // DTP (attention DP + MoE TP): trtllm forbids tp > 1 with attention DP only, so at tp 1 all three run it.
    const dtpMember = b.members.find((m) => strategyOf(m.config as WorkerGroup) === 'dtp');
    expect(dtpMember?.backends).toEqual(['vllm', 'sglang', 'trtllm']);
    const tepMember = b.members.find((m) => strategyOf(m.config as WorkerGroup) === 'tep');
    expect(tepMember?.backends).toEqual(['vllm', 'sglang', 'trtllm']);
    // Deterministic order, no duplicates.
    for (let i = 1; i < b.members.length; i++) expect(compareConfigs(b.members[i - 1].config, b.members[i].config)).toBeLessThan(0);
  });

  it('drops trtllm from disagg and keeps the others', () => {
    const b = enumerateBranch(dense(4), 'disagg', ['trtllm', 'vllm']);
    expect(b.backends).toEqual(['vllm']);
    expect(b.dropped).toMatchObject([{ backend: 'trtllm' }]);
    expect(b.dropped[0].reason).toMatch(/disaggregat/);
  });

  it('drops a backend with no feasible config and fails a branch with none', () => {
    // Under multi-node wide-EP sglang can only run moe_tp == 1; only MoE-TP shapes have KV room here.
    const kv = (sh: { moe_tp: number }) => (sh.moe_tp > 1 ? 1e6 : 10);
    const b = enumerateBranch({ facts: hugeMoeFacts, kvTokensPerRank: kv, gpuBudget: 8 }, 'agg', ['vllm', 'sglang']);
    expect(b.backends).toEqual(['vllm']);
    expect(b.dropped).toMatchObject([{ backend: 'sglang' }]);
    expect(b.dropped[0].reason).toMatch(/no KV-feasible agg parallel config .*kv_capacity/);
    expect(b.members.every((m) => m.backends.join() === 'vllm')).toBe(true);
    const none = () => enumerateBranch({ facts: denseFacts, kvTokensPerRank: () => 100, gpuBudget: 8 }, 'agg', ['vllm', 'sglang']);
    expect(none).toThrow(NoViableParallelConfig);
    expect(none).toThrow(/vllm: no KV-feasible agg parallel config within gpu_budget 8 \(pruned: kv_capacity×4\)/);
  });
});

describe('planBranches', () => {
  it('skips a mode with no viable backend with a warning', () => {
    const r = planBranches(['disagg', 'agg'], (mode) => enumerateBranch(dense(8), mode, ['trtllm']));
    expect(r.branches.map((b) => b.mode)).toEqual(['agg']);
    expect(r.warnings.join('\n')).toMatch(/deployment_mode disagg skipped/);
  });
  it('fails only when no mode is viable', () => {
    const build = (mode: 'agg' | 'disagg') => enumerateBranch({ facts: denseFacts, kvTokensPerRank: () => 1, gpuBudget: 8 }, mode, ['vllm']);
    expect(() => planBranches(['disagg', 'agg'], build)).toThrow(/no deployment_mode is viable/);
  });
});
