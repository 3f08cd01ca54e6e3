import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { perfDataFingerprint } from '../../src/hardware/perf-data-fingerprint.js';

describe('perfDataFingerprint', () => {
  it('changes with any number in a system or coefficient file and with nothing else (not with provenance)', () => {
    const root = mkdtempSync(join(tmpdir(), 'spica-fp-'));
    const coeff = join(root, 'coefficients');
    mkdirSync(join(coeff, 'h100_sxm'), { recursive: true });
    writeFileSync(join(root, 'h100_sxm.yaml'), 'sku: h100_sxm\n');
    writeFileSync(join(coeff, 'h100_sxm', 'vllm.json'), '{"a":1}\n');
    const a = perfDataFingerprint(root, coeff);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(perfDataFingerprint(root, coeff)).toBe(a);
    writeFileSync(join(root, 'README.md'), 'not data\n');
    expect(perfDataFingerprint(root, coeff)).toBe(a);
    writeFileSync(join(coeff, 'h100_sxm', 'vllm.json'), '{"a":2}\n');
    const b = perfDataFingerprint(root, coeff);
    expect(b).not.toBe(a);
    writeFileSync(join(coeff, 'h100_sxm', 'vllm.json'), '{"a":2,"provenance":{"fittedAt":"elsewhere, later"}}\n');
    expect(perfDataFingerprint(root, coeff)).toBe(b);
    writeFileSync(join(root, 'h100_sxm.yaml'), 'sku: h100_sxm # edited\n');
    expect(perfDataFingerprint(root, coeff)).not.toBe(b);
  });

  it('fingerprints the repository data', () => {
    expect(perfDataFingerprint()).toMatch(/^[0-9a-f]{64}$/);
  });
});
