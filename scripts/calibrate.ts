// `npm run calibrate`: fits the perf model's coefficients from the perf DB (SPICA_PERFDB, default
// ../shared/perfdb beside the repository) and writes systems/coefficients/<sku>/<backend>.json.
//   1. per (SKU, backend, op family, dtype/kernel family): utilisation curves on log-size grids;
//   2. per (SKU, backend): pass overheads fitted against the measured agg TTFT/TPOT in e2e/, pooled
//      per backend across SKUs when a SKU has fewer than MIN_E2E_ROWS rows.
// Options: --skus a,b  --backends x,y  --out DIR
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { clearCoefficientsCache, coefficientsPath, defaultCoefficientsDir, type CoefficientsFile } from '../src/hardware/perf/coefficients.js';
import { fitBackend, perfdbPairs } from '../src/hardware/perf/fitBackend.js';
import { loadE2eCases } from '../src/hardware/perf/e2eCases.js';
import { rawCaseOf } from '../src/hardware/perf/e2eAccuracy.js';
import { KERNELS_ONLY_OVERHEAD, fitOverhead, type RawCase } from '../src/hardware/perf/overheadFit.js';
import { perfdbDir, readRooflineRef } from '../src/hardware/perf/perfdbTables.js';

const MIN_E2E_ROWS = 12;
const KERNELS_ONLY = KERNELS_ONLY_OVERHEAD;

const { values } = parseArgs({ options: { skus: { type: 'string' }, backends: { type: 'string' }, out: { type: 'string' } } });
const dir = perfdbDir();
const out = values.out ?? defaultCoefficientsDir();
const wantSku = values.skus?.split(',');
const wantBackend = values.backends?.split(',');
const pairs = perfdbPairs(dir).filter((p) => (!wantSku || wantSku.includes(p.sku)) && (!wantBackend || wantBackend.includes(p.backend)));
if (pairs.length === 0) {
  console.error(`calibrate: no (sku, backend) kernel tables under ${dir}`);
  process.exit(2);
}

const t0 = Date.now();
const files = new Map<string, CoefficientsFile>();
// The replay block (scripts/calibrate-replay.ts) is fitted separately: carry it over from the file
// being replaced. It was fitted against the previous pass times, so rerun calibrate-replay after this.
const replayBlocks = new Map<string, unknown>();
for (const { sku, backend } of pairs) {
  const path = coefficientsPath(out, sku, backend);
  if (!existsSync(path)) continue;
  const replay = (JSON.parse(readFileSync(path, 'utf8')) as { overhead?: { replay?: unknown } }).overhead?.replay;
  if (replay !== undefined) replayBlocks.set(`${sku}/${backend}`, replay);
}
const write = (f: CoefficientsFile): number => {
  const path = coefficientsPath(out, f.sku, f.backend);
  mkdirSync(dirname(path), { recursive: true });
  const text = `${JSON.stringify(f)}\n`;
  writeFileSync(path, text);
  return text.length;
};
for (const { sku, backend } of pairs) {
  const t = Date.now();
  const f = fitBackend(dir, sku, backend, KERNELS_ONLY);
  files.set(`${sku}/${backend}`, f);
  const bytes = write(f);
  console.log(`kernels ${sku}/${backend}: ${Object.keys(f.families).length} families, ${(bytes / 1024).toFixed(1)} KiB, ${((Date.now() - t) / 1000).toFixed(1)} s`);
}
clearCoefficientsCache();

// Stage 2: e2e overheads.
const { cases, skipped } = loadE2eCases(dir, (sku) => Boolean(readRooflineRef(dir, sku).flops.fp4));
const raw = new Map<string, RawCase[]>();
let failed = 0;
for (const c of cases) {
  const key = `${c.sku}/${c.backend}`;
  if (!files.has(key)) continue;
  try {
    const list = raw.get(key) ?? [];
    list.push(rawCaseOf(c, out));
    raw.set(key, list);
  } catch (err) {
    failed++;
    if (failed <= 5) console.warn(`  e2e case ${c.id} skipped: ${(err as Error).message}`);
  }
}
console.log(`e2e: ${cases.length} agg cases usable (${[...skipped].map(([k, v]) => `${v} × ${k}`).join('; ') || 'none skipped'}), ${failed} failed`);

const byBackend = new Map<string, RawCase[]>();
for (const [key, list] of raw) {
  const backend = key.split('/')[1];
  byBackend.set(backend, [...(byBackend.get(backend) ?? []), ...list]);
}
for (const [key, f] of files) {
  const own = raw.get(key) ?? [];
  const pooled = byBackend.get(f.backend) ?? [];
  const use = own.length >= MIN_E2E_ROWS ? own : pooled;
  if (use.length === 0) {
    f.overhead = { ...KERNELS_ONLY, source: `default: no e2e agg rows for ${f.backend}` };
  } else {
    const fit = fitOverhead(use);
    f.overhead = {
      passMs: fit.passMs,
      perLayerMs: fit.perLayerMs,
      kernelScale: fit.kernelScale,
      prefillInterleave: fit.prefillInterleave,
      burstShare: fit.burstShare,
      ttftFixedMs: fit.ttftFixedMs,
      burstRequests: fit.burstRequests,
      prefillScale: fit.prefillScale,
      launchCredit: fit.launchCredit,
      source:
        `fitted:e2e/silicon_dev.csv agg rows of ${use === own ? key : `${f.backend} on all SKUs (only ${own.length} on ${f.sku})`}; ` +
        `median |rel err| TPOT ${(fit.tpotMedianErr * 100).toFixed(1)} %, TTFT ${(fit.ttftMedianErr * 100).toFixed(1)} %`,
      rows: use.length,
    };
  }
  const replay = replayBlocks.get(key);
  if (replay !== undefined) f.overhead = { ...f.overhead, replay: replay as CoefficientsFile['overhead']['replay'] };
  const bytes = write(f);
  console.log(`overhead ${key}: ${JSON.stringify({ ...f.overhead })} (${(bytes / 1024).toFixed(1)} KiB)`);
}
console.log(`calibrate: wrote ${files.size} files under ${out} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
