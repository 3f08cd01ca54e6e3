// Reading the perf-DB extract (calibration, accuracy benches and tests only; a sweep reads fitted
// coefficients): SPICA_PERFDB, else the `shared/perfdb` folder beside the repository (where CI puts it).
// No machine-specific fallback: paths recorded from here are relative to this root.
// The CSVs are never copied into the repository; calibration reads them and keeps only fitted curves.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RooflineRef } from './roofline.js';

export const DEFAULT_PERFDB_DIR = fileURLToPath(new URL('../../../../shared/perfdb', import.meta.url));

export function perfdbDir(): string {
  return process.env.SPICA_PERFDB ?? DEFAULT_PERFDB_DIR;
}

/** How fitted files name the perf-data root: symbolically, never as a build machine's absolute path. */
export function perfdbRootLabel(): string {
  return process.env.SPICA_PERFDB ? '$SPICA_PERFDB' : '../shared/perfdb (beside the repository)';
}

export type CsvRow = Record<string, string>;

/** Minimal CSV reader: the perf-DB files have no quoted fields except in e2e provenance (handled). */
export function readCsv(path: string): CsvRow[] {
  const text = readFileSync(path, 'utf8');
  const lines = text.split(/\r?\n/).filter((l) => l.length > 0);
  if (lines.length === 0) return [];
  const header = splitCsvLine(lines[0]);
  const rows: CsvRow[] = [];
  for (let i = 1; i < lines.length; i++) {
    const cells = splitCsvLine(lines[i]);
    const row: CsvRow = {};
    for (let c = 0; c < header.length; c++) row[header[c]] = cells[c] ?? '';
    rows.push(row);
  }
  return rows;
}

function splitCsvLine(line: string): string[] {
  if (!line.includes('"')) return line.split(',');
  const out: string[] = [];
  let cur = '';
  let q = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (q) {
      if (ch === '"' && line[i + 1] === '"') { cur += '"'; i++; }
      else if (ch === '"') q = false;
      else cur += ch;
    } else if (ch === '"') q = true;
    else if (ch === ',') { out.push(cur); cur = ''; }
    else cur += ch;
  }
  out.push(cur);
  return out;
}

/** Path of one kernel table, or undefined when the extract does not hold it. */
export function tablePath(dir: string, sku: string, backend: string, op: string): string | undefined {
  const p = join(dir, sku, backend, `${op}.csv`);
  return existsSync(p) ? p : undefined;
}

/** Roofline peaks of one SKU from `systems.csv` (AIC's YAML values). */
export function readRooflineRef(dir: string, sku: string): RooflineRef {
  const row = readCsv(join(dir, 'systems.csv')).find((r) => r.system === sku);
  if (!row) throw new Error(`systems.csv has no row for '${sku}'`);
  const num = (k: string): number | undefined => (row[k] ? Number(row[k]) : undefined);
  return {
    memBwBps: Number(row.mem_bw_Bps),
    intraNodeBwBps: Number(row.intra_node_bw_Bps),
    flops: { bf16: Number(row.bfloat16_tc_flops), fp8: num('fp8_tc_flops'), fp4: num('fp4_tc_flops') },
  };
}

/** SKUs with kernel tables in the extract, and the framework version each backend was collected with. */
export function readManifestVersions(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of readCsv(join(dir, 'manifest.csv'))) out.set(`${r.sku}/${r.backend}`, r.source_version);
  return out;
}
