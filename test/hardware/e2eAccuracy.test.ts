// End-to-end check of the steady-state estimate against measured agg deployments (a fixed subset:
// every 5th usable row; the full set runs in `npm run bench perfmodel`). Note: the backend overheads
// were fitted on these same rows by `npm run calibrate`, so this is an in-sample figure.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadE2eCases } from '../../src/hardware/perf/e2eCases.js';
import { evaluateE2e, formatE2eReport } from '../../src/hardware/perf/e2eAccuracy.js';
import { perfdbDir, readRooflineRef } from '../../src/hardware/perf/perfdbTables.js';

const dir = perfdbDir();

// Ratchets (Clarification C): just above what the committed coefficients reach on this subset
// (TTFT 20.5 % / TPOT 9.3 % with the per-pass time capped at 2 ms; 8.5 % uncapped, where b200/vllm fitted a
// 5.3 ms pass constant that made small models' decode implausible). All 982 rows: 18.1 % / 9.6 %.
const MAX_TPOT_MEDIAN = 0.095;
const MAX_TTFT_MEDIAN = 0.21;

describe.skipIf(!existsSync(dir))('steady-state estimate vs e2e/silicon_dev.csv (agg rows)', () => {
  it('reports median |rel err| of TTFT and TPOT per SKU × backend and meets the ratchet floors', () => {
    const { cases } = loadE2eCases(dir, (sku) => Boolean(readRooflineRef(dir, sku).flops.fp4));
    const subset = cases.filter((_, i) => i % 5 === 0);
    const report = evaluateE2e(subset);
    console.log(`steady-state estimate (no simulator replay), ${subset.length} of ${cases.length} agg rows\n${formatE2eReport(report)}`);
    expect(report.failures).toEqual([]);
    expect(report.overall.rows).toBeGreaterThan(100);
    expect(report.overall.tpotMedian).toBeLessThan(MAX_TPOT_MEDIAN);
    expect(report.overall.ttftMedian).toBeLessThan(MAX_TTFT_MEDIAN);
  });
});
