// Steady-state TTFT/TPOT against the measured agg rows of e2e/silicon_dev.csv (the replay-based
// comparison belongs to the simulator; this is the perf-model issue's end-to-end check).
import { loadSystem } from '../systems.js';
import { quantile } from './calibration.js';
import { hasPerfDatabase } from './coefficients.js';
import type { E2eCase } from './e2eCases.js';
import { createEnginePerf } from './engine.js';
import { KERNELS_ONLY_OVERHEAD, type RawCase } from './overheadFit.js';
import { estimateSteadyState, steadyStateParts, type SteadyStateParts } from './steadyState.js';

/**
 * An e2e case as the overhead fit sees it: kernels-only parts, and the engine's parts at any other
 * kernel scale and launch credit (memoised: the fit visits a few dozen of them).
 */
export function rawCaseOf(c: E2eCase, coefficientsDir?: string): RawCase {
  const system = loadSystem(c.sku);
  const memo = new Map<string, SteadyStateParts>();
  const partsAt = (kernelScale: number, launchCredit: number): SteadyStateParts => {
    const key = `${kernelScale}|${launchCredit}`;
    let p = memo.get(key);
    if (!p) {
      const perf = createEnginePerf({ model: c.model, system, backend: c.backend, shape: c.shape, quant: c.quant, moeQuant: c.moeQuant, kvDtype: c.kvDtype, coefficientsDir, overhead: { ...KERNELS_ONLY_OVERHEAD, kernelScale, launchCredit } });
      p = steadyStateParts(perf, c);
      memo.set(key, p);
    }
    return p;
  };
  return { layers: c.model.numLayers, parts: partsAt(1, 0), tpotMs: c.tpotMs, ttftMs: c.ttftMs, partsAt };
}

export interface E2eSummaryRow {
  key: string; // sku/backend
  rows: number;
  ttftMedian: number;
  tpotMedian: number;
  ttftP90: number;
  tpotP90: number;
}

export interface E2eReport {
  rows: E2eSummaryRow[];
  overall: E2eSummaryRow;
  failures: { id: string; error: string }[];
}

function summarise(key: string, ttft: number[], tpot: number[]): E2eSummaryRow {
  ttft.sort((a, b) => a - b);
  tpot.sort((a, b) => a - b);
  return { key, rows: ttft.length, ttftMedian: quantile(ttft, 0.5), tpotMedian: quantile(tpot, 0.5), ttftP90: quantile(ttft, 0.9), tpotP90: quantile(tpot, 0.9) };
}

/** Median / p90 absolute relative error of the steady-state estimate per SKU × backend. */
export function evaluateE2e(cases: readonly E2eCase[], coefficientsDir?: string): E2eReport {
  const groups = new Map<string, { ttft: number[]; tpot: number[] }>();
  const all = { ttft: [] as number[], tpot: [] as number[] };
  const failures: { id: string; error: string }[] = [];
  for (const c of cases) {
    if (!hasPerfDatabase(c.sku, c.backend, coefficientsDir)) continue;
    try {
      const e = estimateSteadyState({ model: c.model, system: loadSystem(c.sku), backend: c.backend, shape: c.shape, quant: c.quant, moeQuant: c.moeQuant, kvDtype: c.kvDtype, isl: c.isl, osl: c.osl, batch: c.batch, coefficientsDir });
      const key = `${c.sku}/${c.backend}`;
      const g = groups.get(key) ?? { ttft: [], tpot: [] };
      const et = Math.abs(e.ttft_ms - c.ttftMs) / c.ttftMs;
      const ep = Math.abs(e.tpot_ms - c.tpotMs) / c.tpotMs;
      g.ttft.push(et);
      g.tpot.push(ep);
      all.ttft.push(et);
      all.tpot.push(ep);
      groups.set(key, g);
    } catch (err) {
      failures.push({ id: c.id, error: (err as Error).message });
    }
  }
  const rows = [...groups].sort(([a], [b]) => a.localeCompare(b)).map(([k, g]) => summarise(k, g.ttft, g.tpot));
  return { rows, overall: summarise('all', all.ttft, all.tpot), failures };
}

export function formatE2eReport(r: E2eReport): string {
  const p = (x: number): string => `${(100 * x).toFixed(1).padStart(6)} %`;
  const lines = ['sku/backend          rows  TTFT median    TTFT p90  TPOT median    TPOT p90'];
  for (const x of [...r.rows, r.overall]) lines.push(`${x.key.padEnd(18)} ${String(x.rows).padStart(6)}  ${p(x.ttftMedian)}  ${p(x.ttftP90)}  ${p(x.tpotMedian)}  ${p(x.tpotP90)}`);
  return lines.join('\n');
}
