// Perf model benchmark: (1) cost of one EnginePerf.passMs call after warm-up against a plain roofline
// evaluation of the same pass (the baseline, measured in the same run); (2) steady-state TTFT/TPOT
// accuracy on every usable agg row of e2e/silicon_dev.csv (the CI test runs a fifth of them).
import { existsSync } from 'node:fs';
import { resolveModel } from '../src/model/catalog.js';
import { weightBytesPerGpu } from '../src/model/weights.js';
import { loadSystem } from '../src/hardware/systems.js';
import type { PassWork } from '../src/hardware/pass.js';
import { createEnginePerf } from '../src/hardware/perf/engine.js';
import { loadE2eCases } from '../src/hardware/perf/e2eCases.js';
import { evaluateE2e, formatE2eReport, rawCaseOf } from '../src/hardware/perf/e2eAccuracy.js';
import { perfdbDir, readRooflineRef } from '../src/hardware/perf/perfdbTables.js';
import { fitOverhead, predictCase, type RawCase } from '../src/hardware/perf/overheadFit.js';
import { hasPerfDatabase } from '../src/hardware/perf/coefficients.js';
import { quantile } from '../src/hardware/perf/calibration.js';
import type { E2eCase } from '../src/hardware/perf/e2eCases.js';

/** Deterministic stream of simulator-like passes: decode batches with mixed-in prefill chunks. */
function workload(n: number): PassWork[] {
  let s = 12345;
  const rnd = (): number => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const out: PassWork[] = [];
  for (let i = 0; i < n; i++) {
    const decodeSeqs = 1 + Math.floor(rnd() * 128);
    const ctx = 256 + Math.floor(rnd() * 8000);
    const prefill = rnd() < 0.3;
    const tokens = prefill ? 64 + Math.floor(rnd() * 2048) : 0;
    const cached = prefill ? Math.floor(rnd() * 4096) : 0;
    out.push({ prefillSeqs: prefill ? 1 : 0, prefillTokens: tokens, prefillAttnPairs: tokens * (cached + tokens / 2), decodeSeqs, decodeContextSum: decodeSeqs * ctx });
  }
  return out;
}

function timePerCall(fn: (w: PassWork) => number, work: PassWork[], rounds: number): { nsPerCall: number; sink: number } {
  let sink = 0;
  for (const w of work) sink += fn(w); // warm-up (JIT, memo)
  const t0 = process.hrtime.bigint();
  for (let r = 0; r < rounds; r++) for (const w of work) sink += fn(w);
  const ns = Number(process.hrtime.bigint() - t0);
  return { nsPerCall: ns / (rounds * work.length), sink };
}

export async function run(): Promise<void> {
  const model = resolveModel('meta-llama/Llama-3.1-70B');
  const system = loadSystem('h200_sxm');
  const shape = { tp: 4, pp: 1, attention_dp: 1, moe_tp: 4, moe_ep: 1 };
  const perf = createEnginePerf({ model, system, backend: 'vllm', shape, quant: 'fp8', kvDtype: 'bf16' });
  // Baseline: plain roofline of the same pass — weights streamed once, 2·params FLOPs per token,
  // KV read for decode, causal attention FLOPs for prefill.
  const weights = weightBytesPerGpu(model, shape, { linear: 'fp8', moe: 'fp8' });
  const kvPerTok = (model.numLayers * 2 * Math.ceil(model.numKvHeads / 4) * model.headDim * 2);
  const attnFlopsPerPair = 4 * model.numLayers * (model.numHeads / 4) * model.headDim;
  const roofline = (w: PassWork): number => {
    const tokens = w.prefillTokens + w.decodeSeqs;
    const flops = 2 * weights * tokens + attnFlopsPerPair * (w.prefillAttnPairs + w.decodeContextSum);
    const bytes = weights + kvPerTok * (w.decodeContextSum + w.prefillTokens);
    return Math.max(flops / system.flops.fp8!, bytes / system.memBwBps) * 1e3;
  };
  const work = workload(4096);
  const base = timePerCall(roofline, work, 50);
  const eng = timePerCall((w) => perf.passMs(w), work, 50);
  console.log(`passMs (Llama-3.1-70B fp8, h200_sxm/vllm, tp4; ${work.length} distinct simulator-like passes × 50 rounds)`);
  console.log(`  plain roofline baseline: ${(base.nsPerCall / 1e3).toFixed(3)} µs/call`);
  console.log(`  calibrated EnginePerf:   ${(eng.nsPerCall / 1e3).toFixed(3)} µs/call  (ratio ${(eng.nsPerCall / base.nsPerCall).toFixed(1)}× the baseline)`);
  const moe = resolveModel('deepseek-ai/DeepSeek-R1');
  const mperf = createEnginePerf({ model: moe, system: loadSystem('b200_sxm'), backend: 'sglang', shape: { tp: 8, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 8 }, quant: 'fp8_block', kvDtype: 'bf16' });
  const m = timePerCall((w) => mperf.passMs(w), work, 50);
  console.log(`  DeepSeek-R1 (MLA + MoE), b200_sxm/sglang tep8: ${(m.nsPerCall / 1e3).toFixed(3)} µs/call (ratio ${(m.nsPerCall / base.nsPerCall).toFixed(1)}×)`);

  const dir = perfdbDir();
  if (!existsSync(dir)) {
    console.log(`e2e accuracy: skipped (no perf DB at ${dir})`);
    return;
  }
  const hasFp4 = (sku: string): boolean => Boolean(readRooflineRef(dir, sku).flops.fp4);
  const { cases, skipped } = loadE2eCases(dir, hasFp4);
  const t0 = Date.now();
  const report = evaluateE2e(cases);
  console.log(`\nsteady-state estimate vs e2e/silicon_dev.csv, all ${cases.length} usable agg rows (${Date.now() - t0} ms; skipped: ${[...skipped].map(([k, v]) => `${v} × ${k}`).join('; ')})`);
  console.log('(in-sample: backend overheads were fitted on these rows by `npm run calibrate`; no simulator replay)');
  console.log(formatE2eReport(report));
  if (report.failures.length > 0) console.log(`failures: ${report.failures.length}, e.g. ${report.failures[0].id}: ${report.failures[0].error}`);
  // MXFP4 experts on GPUs without FP4 tensor cores (gpt-oss on Hopper: weight-only w4a16 kernels)
  // were unsupported before; report them and the rest (the earlier row set) apart.
  const weightOnly = (c: E2eCase): boolean => c.moeQuant === 'mxfp4' && !hasFp4(c.sku);
  for (const [label, subset] of [
    ['MXFP4 weight-only rows (gpt-oss on GPUs without FP4 tensor cores)', cases.filter(weightOnly)],
    ['all other rows', cases.filter((c) => !weightOnly(c))],
  ] as const) {
    console.log(`\n${label}: ${subset.length}`);
    console.log(formatE2eReport(evaluateE2e(subset)));
  }
  heldOutE2e(cases, weightOnly);
}

/**
 * Generalisation of the e2e overhead fit: 2-fold cross-validation per SKU × backend (fit the
 * overheads on even rows, predict odd rows, and vice versa), with the engine's own pass arithmetic
 * (parts re-evaluated at each kernel scale the fit tries).
 */
function heldOutE2e(cases: readonly E2eCase[], flagged: (c: E2eCase) => boolean): void {
  const groups = new Map<string, RawCase[]>();
  const isFlagged = new Set<RawCase>();
  for (const c of cases) {
    if (!hasPerfDatabase(c.sku, c.backend)) continue;
    const key = `${c.sku}/${c.backend}`;
    const raw = rawCaseOf(c);
    if (flagged(c)) isFlagged.add(raw);
    groups.set(key, [...(groups.get(key) ?? []), raw]);
  }
  const flaggedErr = { t: [] as number[], p: [] as number[] };
  const otherErr = { t: [] as number[], p: [] as number[] };
  const p = (x: number): string => `${(100 * x).toFixed(1).padStart(6)} %`;
  console.log('\n2-fold held-out e2e error of the overhead fit (median |rel err|)');
  console.log('sku/backend          rows  TTFT median  TPOT median');
  const allT: number[] = [];
  const allP: number[] = [];
  for (const [key, list] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    const et: number[] = [];
    const ep: number[] = [];
    for (const fold of [0, 1]) {
      const train = list.filter((_, i) => i % 2 === fold);
      const test = list.filter((_, i) => i % 2 !== fold);
      if (train.length < 6 || test.length === 0) continue;
      const fit = fitOverhead(train);
      for (const c of test) {
        const y = predictCase(c, fit);
        const t = Math.abs(y.ttftMs - c.ttftMs) / c.ttftMs;
        const q = Math.abs(y.tpotMs - c.tpotMs) / c.tpotMs;
        et.push(t);
        ep.push(q);
        const bucket = isFlagged.has(c) ? flaggedErr : otherErr;
        bucket.t.push(t);
        bucket.p.push(q);
      }
    }
    allT.push(...et);
    allP.push(...ep);
    console.log(`${key.padEnd(18)} ${String(et.length).padStart(6)}  ${p(quantile(et.sort((a, b) => a - b), 0.5))}  ${p(quantile(ep.sort((a, b) => a - b), 0.5))}`);
  }
  console.log(`${'all'.padEnd(18)} ${String(allT.length).padStart(6)}  ${p(quantile(allT.sort((a, b) => a - b), 0.5))}  ${p(quantile(allP.sort((a, b) => a - b), 0.5))}`);
  for (const [label, e] of [['  MXFP4 w4a16', flaggedErr], ['  all other', otherErr]] as const) {
    console.log(`${label.padEnd(18)} ${String(e.t.length).padStart(6)}  ${p(quantile(e.t.sort((a, b) => a - b), 0.5))}  ${p(quantile(e.p.sort((a, b) => a - b), 0.5))}`);
  }
}
