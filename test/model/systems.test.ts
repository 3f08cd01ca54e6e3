import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { defaultSystemsDir, listSystems, loadSystem } from '../../src/hardware/systems.js';
import { readPerfdbCsv } from './perfdb-csv.js';

const REQUIRED = ['a100_sxm', 'b200_sxm', 'gb200', 'h100_sxm', 'h200_sxm'];

function tmpSystemsDir(): string {
  return mkdtempSync(join(tmpdir(), 'spica-systems-'));
}

describe('hardware systems', () => {
  it('ships the required SKUs and every one loads', () => {
    const skus = listSystems();
    for (const sku of REQUIRED) expect(skus).toContain(sku);
    for (const sku of skus) expect(loadSystem(sku).sku).toBe(sku);
    expect(defaultSystemsDir()).toMatch(/systems\/?$/);
  });

  it('converts the readable YAML units back to the systems.csv SI values exactly', () => {
    const rows = readPerfdbCsv('systems.csv');
    const opt = (v: string) => (v === '' ? undefined : Number(v));
    for (const sku of listSystems()) {
      const row = rows.find((r) => r.system === sku);
      expect(row, sku).toBeDefined();
      const s = loadSystem(sku);
      const expected = {
        sku,
        memCapacityBytes: Number(row!.mem_capacity_bytes),
        memBwBps: Number(row!.mem_bw_Bps),
        flops: Object.fromEntries(
          (
            [
              ['fp32', row!.float32_tc_flops],
              ['bf16', row!.bfloat16_tc_flops],
              ['int8', row!.int8_tc_flops],
              ['fp8', row!.fp8_tc_flops],
              ['fp4', row!.fp4_tc_flops],
            ] as const
          )
            .filter(([, v]) => v !== '')
            .map(([k, v]) => [k, Number(v)]),
        ),
        gpusPerNode: Number(row!.num_gpus_per_node),
        gpusPerRack: opt(row!.num_gpus_per_rack) ?? Number(row!.num_gpus_per_node),
        intraNodeBwBps: Number(row!.intra_node_bw_Bps),
        interNodeBwBps: Number(row!.inter_node_bw_Bps),
        p2pLatencyS: Number(row!.p2p_latency_s),
        ncclMemBytes: {
          '1': Number(row!.nccl_mem_tp1_bytes),
          '2': Number(row!.nccl_mem_tp2_bytes),
          '4': Number(row!.nccl_mem_tp4_bytes),
          '8': Number(row!.nccl_mem_tp8_bytes),
        },
        otherMemBytes: Number(row!.other_mem_bytes),
        memBwEmpiricalScaling: Number(row!.mem_bw_empirical_scaling_factor),
        elementwiseLatencyS: Number(row!.mem_empirical_constant_latency_s),
        pcieBwBps: Number(row!.pcie_bw_Bps),
        ...(row!.inter_rack_bw_Bps ? { interRackBwBps: Number(row!.inter_rack_bw_Bps) } : {}),
        ...(row!.inter_rack_latency_s ? { interRackLatencyS: Number(row!.inter_rack_latency_s) } : {}),
      };
      expect(s, sku).toEqual(expected);
    }
  });

  it('rejects an unknown SKU listing the available ones', () => {
    let err: unknown;
    try {
      loadSystem('tpu_v9');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/unknown hardware SKU 'tpu_v9'/);
    for (const sku of REQUIRED) expect((err as Error).message).toContain(sku);
  });

  it('lets a user add a SKU by adding a file', () => {
    const dir = tmpSystemsDir();
    const h100 = readFileSync(join(defaultSystemsDir(), 'h100_sxm.yaml'), 'utf8');
    writeFileSync(join(dir, 'h100_custom.yaml'), h100.replace('sku: h100_sxm', 'sku: h100_custom').replace('memory_gib: 80', 'memory_gib: 94'));
    writeFileSync(join(dir, 'notes.txt'), 'not a system');
    expect(listSystems({ systemsDir: dir })).toEqual(['h100_custom']);
    const s = loadSystem('h100_custom', { systemsDir: dir });
    expect(s.memCapacityBytes).toBe(94 * 2 ** 30);
    expect(s.flops.fp4).toBeUndefined();
  });

  it('names the file and the field of a malformed system', () => {
    const dir = tmpSystemsDir();
    const h100 = readFileSync(join(defaultSystemsDir(), 'h100_sxm.yaml'), 'utf8');
    const cases: [string, string, RegExp][] = [
      ['neg_bw', h100.replace('sku: h100_sxm', 'sku: neg_bw').replace('memory_bw_tb_per_s: 3.35', 'memory_bw_tb_per_s: -1'), /neg_bw\.yaml: invalid field 'gpu\.memory_bw_tb_per_s'/],
      ['typo', h100.replace('sku: h100_sxm', 'sku: typo').replace('pcie_bw_gb_per_s', 'pcie_bandwidth'), /typo\.yaml: .*invalid field 'node': Unrecognized key: "pcie_bandwidth"/],
      ['no_bf16', h100.replace('sku: h100_sxm', 'sku: no_bf16').replace('    bf16: 989\n', ''), /no_bf16\.yaml: invalid field 'gpu\.dense_tflops\.bf16'/],
      ['mismatch', h100, /mismatch\.yaml: invalid field 'sku'.*h100_sxm/],
      ['broken', 'gpu: [unclosed', /broken\.yaml: not valid YAML/],
    ];
    for (const [sku, text, pattern] of cases) {
      writeFileSync(join(dir, `${sku}.yaml`), text);
      expect(() => loadSystem(sku, { systemsDir: dir }), sku).toThrow(pattern);
      expect(() => loadSystem(sku, { systemsDir: dir }), sku).toThrow(InputError);
    }
  });
});
