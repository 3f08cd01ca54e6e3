import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, configHash12, defaultSweepWorkflowId, withRunSuffix } from '../../src/cli/temporal/workflow-id.js';

describe('sweep workflow ids', () => {
  it('canonical JSON sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[{"y":2,"z":1}]},"b":1}');
  });

  it('is spica-<12 hex of sha256(canonical JSON)>-<seed>, independent of key order', () => {
    const a = { sweep: { seed: 7 }, search_space: { model_name: 'm', hardware_sku: 'h' } };
    const b = { search_space: { hardware_sku: 'h', model_name: 'm' }, sweep: { seed: 7 } };
    const expected = createHash('sha256').update(canonicalJson(a)).digest('hex').slice(0, 12);
    expect(configHash12(a)).toBe(expected);
    expect(defaultSweepWorkflowId(a, 7)).toBe(`spica-${expected}-7`);
    expect(defaultSweepWorkflowId(b, 7)).toBe(defaultSweepWorkflowId(a, 7));
    expect(defaultSweepWorkflowId({ ...a, sweep: { seed: 8 } }, 8)).not.toContain(expected);
  });

  it('suffixes reruns -2, -3, …', () => {
    expect(withRunSuffix('spica-x-1', 1)).toBe('spica-x-1');
    expect(withRunSuffix('spica-x-1', 2)).toBe('spica-x-1-2');
    expect(withRunSuffix('spica-x-1', 3)).toBe('spica-x-1-3');
  });
});
