// Fits every op family of one (SKU, backend) from the perf DB into a CoefficientsFile (kernel part).
import { relative } from 'node:path';
import { BACKEND_FAMILIES, FAMILIES, type FamilyName, type Sample } from './families.js';
import { fitCurve } from './calibration.js';
import { gridToJson } from './grid.js';
import { perfdbRootLabel, readCsv, readManifestVersions, readRooflineRef, tablePath } from './perfdbTables.js';
import type { CoefficientsFile, Overhead } from './coefficients.js';

export const PERFDB_SNAPSHOT = 'ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce (perfdb extract)';

/** Kernel-table SKUs and backends present in a perf-DB directory (from manifest.csv). */
export function perfdbPairs(dir: string): { sku: string; backend: 'vllm' | 'sglang' | 'trtllm' }[] {
  const out: { sku: string; backend: 'vllm' | 'sglang' | 'trtllm' }[] = [];
  for (const key of readManifestVersions(dir).keys()) {
    const [sku, backend] = key.split('/');
    if (backend === 'vllm' || backend === 'sglang' || backend === 'trtllm') out.push({ sku, backend });
  }
  return out;
}

export function fitBackend(dir: string, sku: string, backend: 'vllm' | 'sglang' | 'trtllm', overhead: Overhead, now = new Date()): CoefficientsFile {
  const ref = readRooflineRef(dir, sku);
  const versions = readManifestVersions(dir);
  const families: CoefficientsFile['families'] = {};
  const tables: CoefficientsFile['provenance']['tables'] = [];
  const fams: { fam: FamilyName; path: string | undefined }[] = BACKEND_FAMILIES.map((fam) => ({ fam, path: tablePath(dir, sku, backend, FAMILIES[fam].table) }));
  fams.push({ fam: 'nccl', path: tablePath(dir, sku, 'nccl', 'nccl') });
  for (const { fam, path } of fams) {
    if (!path) continue;
    const spec = FAMILIES[fam];
    const rows = readCsv(path);
    const groups = new Map<string, Sample[]>();
    for (const r of rows) {
      const s = spec.sample(r, ref);
      if (!s) continue;
      let g = groups.get(s.group);
      if (!g) groups.set(s.group, (g = []));
      g.push(s);
    }
    if (spec.hostBoundFloorS !== undefined) {
      for (const [group, samples] of groups) {
        const fastest = samples.reduce((m, x) => Math.min(m, x.latency), Infinity);
        if (fastest > spec.hostBoundFloorS) groups.delete(group);
      }
    }
    if (groups.size === 0) continue;
    tables.push({ family: fam, path: relative(dir, path), rows: rows.length });
    const out: CoefficientsFile['families'][string] = {};
    for (const [group, samples] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
      const fitted = fitCurve(spec.axes, samples);
      out[group] = { ...gridToJson(fitted.grid), stats: fitted.stats, floorS: fitted.floorS };
    }
    families[fam] = out;
  }
  return {
    schema: 1,
    sku,
    backend,
    frameworkVersion: versions.get(`${sku}/${backend}`) ?? 'unknown',
    provenance: {
      source: perfdbRootLabel(),
      snapshot: PERFDB_SNAPSHOT,
      tables,
      fittedAt: now.toISOString(),
      tool: 'scripts/calibrate.ts',
    },
    reference: ref,
    overhead,
    families,
  };
}
