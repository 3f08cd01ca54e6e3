import { describe, expect, it } from 'vitest';
import { normalizePin, pinnedBranch } from '../../src/parallel/pinned.js';
import { InputError } from '../../src/errors.js';
import { ampleKv, denseFacts, moeFacts, tpBoundKv } from './fixtures.js';

const moeCtx = { facts: moeFacts, kvTokensPerRank: ampleKv, gpuBudget: 64 };

describe('normalizePin', () => {
  it('defaults omitted dims and replicas to 1', () => {
    expect(normalizePin({ tp: 4, moe_ep: 4, replicas: 2 }, 'agg', 'p')).toEqual({
      tp: 4, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 4, replicas: 2,
    });
    expect(normalizePin({ prefill: { tp: 2 }, decode: { tp: 4, replicas: 3 } }, 'disagg', 'p')).toEqual({
      prefill: { tp: 2, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 1, replicas: 1 },
      decode: { tp: 4, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 1, replicas: 3 },
    });
  });
  it('rejects structural mistakes', () => {
    expect(() => normalizePin({ attention_dp: 2 }, 'agg', 'p')).toThrow(/'tp' is required/);
    expect(() => normalizePin({ tp: 2, dp: 2 } as never, 'agg', 'p')).toThrow(/unknown key\(s\) dp/);
    expect(() => normalizePin({ tp: 0 }, 'agg', 'p')).toThrow(/tp must be a positive integer/);
    expect(() => normalizePin({ tp: 2 }, 'disagg', 'p')).toThrow(/needs both 'prefill' and 'decode'/);
    expect(() => normalizePin({ prefill: { tp: 2 }, decode: { tp: 2 } }, 'agg', 'p')).toThrow(/flat shape dict/);
  });
});

describe('pinnedBranch', () => {
  it('keeps the seed example pin (TEP, 8 GPUs) for every backend it is legal on', () => {
    const b = pinnedBranch(moeCtx, 'agg', ['trtllm', 'vllm', 'sglang'], [{ tp: 4, moe_ep: 4, replicas: 2 }]);
    expect(b.members).toHaveLength(1);
    expect(b.members[0]).toMatchObject({ config: { tp: 4, moe_ep: 4, replicas: 2 }, backends: ['vllm', 'sglang', 'trtllm'] });
    expect(b.pruned).toEqual([]);
  });

  it('keeps a pin only for the backends whose filters it passes', () => {
    // MoE TP with attention DP is legal on vllm and sglang (no wide-EP here); trtllm forbids tp > 1 with attention DP.
    const b = pinnedBranch(moeCtx, 'agg', ['vllm', 'sglang', 'trtllm'], [{ tp: 4, moe_tp: 4 }, { tp: 2, attention_dp: 2, moe_tp: 4 }]);
    const backendsOf = (pin: object) => b.members.find((m) => Object.entries(pin).every(([k, v]) => (m.config as any)[k] === v))?.backends;
    expect(backendsOf({ tp: 4, attention_dp: 1, moe_tp: 4 })).toEqual(['vllm', 'sglang', 'trtllm']);
    expect(backendsOf({ tp: 2, attention_dp: 2, moe_tp: 4 })).toEqual(['vllm', 'sglang']);
    expect(b.pruned).toMatchObject([{ backend: 'trtllm', reason: 'backend_filter:trtllm' }]);
    expect(b.dropped).toEqual([]);
  });

  it('allows mixed shapes the enumerator never emits, subject to backend filters', () => {
    const mixed = { tp: 2, attention_dp: 2, moe_ep: 4 };
    const b = pinnedBranch(moeCtx, 'agg', ['vllm', 'trtllm'], [mixed]);
    expect(b.members[0].backends).toEqual(['vllm']);
    expect(b.dropped).toMatchObject([{ backend: 'trtllm' }]);
  });

  it('a pin legal for no backend is an InputError naming the pin and each backend reason', () => {
    const run = () => pinnedBranch(moeCtx, 'agg', ['vllm', 'trtllm'], [{ tp: 2, attention_dp: 2, moe_tp: 2, moe_ep: 2 }]);
    expect(run).toThrow(InputError);
    expect(run).toThrow(/parallel_configs\[0\] \{tp: 2, attention_dp: 2, moe_tp: 2, moe_ep: 2\} is legal for no backend/);
    expect(run).toThrow(/vllm: backend_filter:vllm/);
    expect(run).toThrow(/trtllm: backend_filter:trtllm/);
  });

  it('checks MoE width, ladder, budget and KV feasibility', () => {
    const ctx = { facts: moeFacts, kvTokensPerRank: tpBoundKv, gpuBudget: 16 };
    expect(() => pinnedBranch(ctx, 'agg', ['vllm'], [{ tp: 4, moe_ep: 2 }])).toThrow(/moe_width/);
    expect(() => pinnedBranch(ctx, 'agg', ['vllm'], [{ tp: 3, moe_ep: 3 }])).toThrow(/ladder/);
    expect(() => pinnedBranch(ctx, 'agg', ['vllm'], [{ tp: 4, moe_ep: 4, replicas: 5 }])).toThrow(/uses 20 GPUs, over gpu_budget 16/);
    expect(() => pinnedBranch(ctx, 'agg', ['vllm'], [{ tp: 1, attention_dp: 4, moe_ep: 4 }])).toThrow(/kv_capacity/);
    expect(() => pinnedBranch({ ...ctx, facts: denseFacts }, 'agg', ['vllm'], [{ tp: 16 }])).toThrow(/node_size/);
  });

  it('disagg pins: trtllm excluded, both roles checked, the seed example accepted', () => {
    const pin = {
      prefill: { tp: 8, attention_dp: 1, moe_tp: 1, moe_ep: 8, replicas: 1 },
      decode: { tp: 1, attention_dp: 8, moe_tp: 1, moe_ep: 8, replicas: 2 },
    };
    const b = pinnedBranch(moeCtx, 'disagg', ['vllm', 'trtllm'], [pin]);
    expect(b.members[0].backends).toEqual(['vllm']);
    expect(b.members[0].kv_capacity_tokens_per_rank).toEqual({ prefill: 800_000, decode: 100_000 });
    expect(() => pinnedBranch(moeCtx, 'disagg', ['trtllm'], [pin])).toThrow(/trtllm: prefill backend_mode/);
    const kvDecode = (s: { tp: number }, _b: string, role: string) => (role === 'decode' ? 10 : 1e9);
    expect(() => pinnedBranch({ ...moeCtx, kvTokensPerRank: kvDecode }, 'disagg', ['vllm'], [pin])).toThrow(/vllm: decode kv_capacity/);
  });

  it('merges duplicate pins and orders the pool deterministically', () => {
    const b = pinnedBranch(moeCtx, 'agg', ['vllm'], [{ tp: 8, moe_ep: 8 }, { tp: 2, moe_ep: 2 }, { tp: 2, moe_ep: 2, replicas: 1 }]);
    expect(b.members.map((m) => (m.config as { tp: number }).tp)).toEqual([2, 8]);
  });
});
