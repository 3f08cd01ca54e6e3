import { describe, expect, it } from 'vitest';
import {
  backendModeViolation,
  backendViolation,
  checkShape,
  moePattern,
  nodeSizeViolation,
  structuralViolation,
  wideEpEnabled,
} from '../../src/parallel/legality.js';
import { ampleKv, denseFacts, hugeMoeFacts, moeFacts, shape } from './fixtures.js';

describe('moePattern', () => {
  it('classifies the four pure patterns and canonicalizes one GPU as tp', () => {
    expect(moePattern(shape({ tp: 4, moe_ep: 4 }))).toBe('tep');
    expect(moePattern(shape({ attention_dp: 4, moe_ep: 4 }))).toBe('dep');
    expect(moePattern(shape({ tp: 4, moe_tp: 4 }))).toBe('tp');
    expect(moePattern(shape({ attention_dp: 4, moe_tp: 4 }))).toBe('dtp');
    expect(moePattern(shape({}))).toBe('tp');
    expect(moePattern(shape({ tp: 2, attention_dp: 2, moe_ep: 4 }))).toBeNull();
    expect(moePattern(shape({ tp: 4, moe_tp: 2, moe_ep: 2 }))).toBeNull();
  });
});

describe('backend filters', () => {
  it('trtllm forbids tp > 1 with attention_dp > 1', () => {
    const s = shape({ tp: 2, attention_dp: 2, moe_ep: 4 });
    expect(backendViolation(s, 'trtllm', moeFacts)?.reason).toBe('backend_filter:trtllm');
    expect(backendViolation(s, 'vllm', moeFacts)).toBeNull();
    expect(backendViolation(s, 'sglang', moeFacts)).toBeNull();
  });
  it('sglang keeps MoE tensor parallelism; its EP-only wide-EP backends (multi-node wide-EP models) force moe_tp == 1', () => {
    const s = shape({ tp: 4, moe_tp: 4 });
    expect(backendViolation(s, 'sglang', moeFacts)).toBeNull();
    expect(backendViolation(shape({ tp: 1, attention_dp: 4, moe_tp: 4 }), 'sglang', moeFacts)).toBeNull();
    expect(backendViolation(s, 'sglang', hugeMoeFacts)?.reason).toBe('backend_filter:sglang');
    expect(backendViolation(shape({ tp: 4, moe_ep: 4 }), 'sglang', hugeMoeFacts)).toBeNull();
    expect(backendViolation(shape({ tp: 4 }), 'sglang', denseFacts)).toBeNull();
    expect(backendViolation(shape({ tp: 4, moe_ep: 4 }), 'sglang', moeFacts)).toBeNull();
  });
  it('vllm forbids moe_tp > 1 with moe_ep > 1', () => {
    const s = shape({ tp: 4, moe_tp: 2, moe_ep: 2 });
    expect(backendViolation(s, 'vllm', moeFacts)?.reason).toBe('backend_filter:vllm');
    expect(backendViolation(s, 'trtllm', moeFacts)).toBeNull();
  });
  it('trtllm is excluded from disaggregated roles only', () => {
    expect(backendModeViolation('trtllm', 'prefill')?.reason).toBe('backend_mode');
    expect(backendModeViolation('trtllm', 'decode')?.reason).toBe('backend_mode');
    expect(backendModeViolation('trtllm', 'agg')).toBeNull();
    expect(backendModeViolation('vllm', 'decode')).toBeNull();
  });
});

describe('structural rules', () => {
  it('requires the ladder width and the MoE width equality', () => {
    expect(structuralViolation(shape({ tp: 3 }), denseFacts)?.reason).toBe('ladder');
    expect(structuralViolation(shape({ tp: 32 }), { ...denseFacts, gpusPerNode: 64 })?.reason).toBe('ladder');
    expect(structuralViolation(shape({ tp: 4, moe_ep: 2 }), moeFacts)?.reason).toBe('moe_width');
    expect(structuralViolation(shape({ tp: 4, moe_ep: 4 }), denseFacts)?.reason).toBe('moe_width');
    expect(structuralViolation(shape({ tp: 4, moe_ep: 4 }), moeFacts)).toBeNull();
  });
  it('keeps workers inside a node unless wide-EP is on, and then only for EP patterns', () => {
    expect(wideEpEnabled(moeFacts)).toBe(false); // 8 × 80 GB ≥ 2 × 200 GB
    expect(wideEpEnabled(hugeMoeFacts)).toBe(true); // 8 × 80 GB < 2 × 700 GB
    expect(wideEpEnabled({ ...hugeMoeFacts, isMoe: false })).toBe(false);
    const dep16 = shape({ attention_dp: 16, moe_ep: 16 });
    const tp16 = shape({ tp: 16, moe_tp: 16 });
    expect(nodeSizeViolation(dep16, moeFacts)?.reason).toBe('node_size');
    expect(nodeSizeViolation(dep16, hugeMoeFacts)).toBeNull();
    expect(nodeSizeViolation(tp16, hugeMoeFacts)?.reason).toBe('node_size');
    expect(nodeSizeViolation(shape({ tp: 16 }), denseFacts)?.reason).toBe('node_size');
    expect(nodeSizeViolation(shape({ tp: 8 }), denseFacts)).toBeNull();
  });
});

describe('checkShape', () => {
  it('keeps a shape iff per-rank KV tokens exceed max_seq_len', () => {
    const at = (tokens: number) => checkShape(shape({ tp: 2 }), 'vllm', 'agg', denseFacts, () => tokens, true);
    expect(at(8192)).toMatchObject({ ok: false, reason: 'kv_capacity' });
    expect(at(8193)).toEqual({ ok: true, kvTokensPerRank: 8193 });
  });
  it('passes backend and role to the KV function', () => {
    const seen: string[] = [];
    checkShape(shape({ tp: 2 }), 'sglang', 'decode', denseFacts, (_s, b, r) => (seen.push(`${b}/${r}`), 1e9), true);
    expect(seen).toEqual(['sglang/decode']);
  });
  it('applies the pure-pattern rule only when asked (pins may be mixed)', () => {
    const mixed = shape({ tp: 2, attention_dp: 2, moe_ep: 4 });
    expect(checkShape(mixed, 'vllm', 'agg', moeFacts, ampleKv, true)).toMatchObject({ ok: false, reason: 'pattern' });
    expect(checkShape(mixed, 'vllm', 'agg', moeFacts, ampleKv, false).ok).toBe(true);
  });
});
