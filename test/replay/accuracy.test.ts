// Replay vs measured deployments (e2e/silicon_dev.csv): a fixed subset — per (sku, backend, mode) the
// few cheapest-to-replay rows with the smallest id hash — replayed as closed loops; prints median
// |rel err| of mean TTFT / TPOT per group and asserts ratchet floors (Clarification C: just above what
// the simulator reaches now; raise them as fidelity improves). The full set runs in `npm run bench accuracy`.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { perfdbDir, readRooflineRef } from '../../src/hardware/perf/perfdbTables.js';
import { evaluateReplayAccuracy, formatAccuracyReport, replayRow, summarise } from '../../src/replay/accuracy/evaluate.js';
import { atBurstShare, meanLatencies, windowParts } from '../../src/replay/accuracy/window.js';
import { loadE2eRows, parseE2eRow } from '../../src/replay/accuracy/rows.js';
import { AGG_LENGTH_SPREAD, defaultLengthSpread, replaySpecForRow, requestCount, requestCountForRow, spreadLengths } from '../../src/replay/accuracy/rowSpec.js';
import { ciSubset, foldOf } from '../../src/replay/accuracy/subset.js';
import { correctionsFor, fitBurstShares, fitReplayOverheads, fitWithBurstShares, predictRaw, unapplyFit, type RawReplay } from '../../src/replay/accuracy/replayFit.js';

const dir = perfdbDir();
const hasFp4 = (sku: string): boolean => Boolean(readRooflineRef(dir, sku).flops.fp4);


// Ratchets on the CI subset (median |relative error|), set just above the current figures with the
// committed replay corrections: agg 15.6 % TTFT / 11.0 % TPOT (71 rows), disagg 18.9 % / 28.6 % (3 rows).
// History: 2026-11-30 agg rows read in the 'benchmark' window (evaluate.ts), corrections per
// architecture class fitted on every row: whole bench agg TTFT 25.6 → 18.6 %, TPOT 10.8 → 9.5 %. Then
// rows whose parallel columns carry the GPU count squared were read as the deployments they measured
// (e2eCases.ts `deployedShape`) and everything recalibrated: whole bench agg 18.8 % / 8.6 %, disagg
// (28 rows) TTFT 36.7 → 37.1 %, TPOT 25.2 → 21.2 %; on this subset the 3 disagg rows' TTFT swung
// 7.2 → 57.6 % (b200/sglang's refitted pass model moved its two rows, +44 %): 3 rows are too few to
// ratchet finely. Then the harness's burst share was fitted with the
// corrections (replayFit.ts `fitBurstShares`): whole bench agg 17.0 % / 8.8 % (held out 20.2 / 9.5),
// this subset 14.4 → 15.8 % / 9.0 → 9.8 %. Then Gated DeltaNet layers got their real projections and
// an fp32 recurrent state (engine.ts, kv-cache.ts), recalibrated: whole bench agg 17.5 % / 8.8 % (held
// out 20.4 / 9.5), b200/sglang TPOT 11.8 → 11.4 %; this subset's agg TPOT 9.8 → 11.0 % (its Qwen3.5 and
// refitted-SGLang rows), disagg TTFT 57.6 → 18.9 %. The subset is 8 rows per (sku, backend, mode) under
// 150k emitted tokens: with 4 per group (36 rows, the cheapest) it swung 29 → 36 % agg TTFT while the
// whole bench improved 32.5 → 24.4 %, too few rows to ratchet on.
const FLOORS = {
  agg: { ttft: 0.165, tpot: 0.112 },
  // Disagg TPOT is high (3 rows) since DeepSeek fp8 checkpoints moved to the measured block-scaled fp8
  // kernels: the b200/sglang rows decode faster than those kernels allow (unrecorded MTP speculative
  // decoding, likely), so the physically slower kernels widen the gap. 0.36 → 0.41 with the decode
  // launch credit (perf model, 2026-11-30): agg TPOT improved on the whole bench, these 3 rows did not.
  disagg: { ttft: 0.2, tpot: 0.3 },
};

describe('accuracy rows and specs (pure)', () => {
  const csv = (o: Record<string, string>): Record<string, string> => ({
    id: 'x', silicon_data_source: 'silicon_concurrency=64; x', backend: 'vllm', model_path: 'Qwen/Qwen3-32B', system: 'h100_sxm', precision: 'bf16',
    mode: 'agg', isl: '1024', osl: '128', gemm_quant_mode: '', moe_quant_mode: '', batch_size: '32', tp_size: '2', pp_size: '1', attention_dp_size: '2',
    silicon_ttft_ms: '100', silicon_tpot_ms: '10', ...o,
  });

  it('reads agg concurrency from the provenance, else batch_size × attention_dp', () => {
    const a = parseE2eRow(csv({}), () => true);
    const b = parseE2eRow(csv({ silicon_data_source: 'no concurrency recorded' }), () => true);
    expect(typeof a !== 'string' && a.concurrency).toBe(64);
    expect(typeof b !== 'string' && b.concurrency).toBe(64);
    expect(parseE2eRow(csv({ model_path: 'nobody/unknown' }), () => true)).toMatch(/unknown model/);
  });

  it('reads disagg decode_batch_size per decode rank and skips rows without worker counts', () => {
    const d = parseE2eRow(
      csv({ mode: 'disagg', silicon_data_source: '', batch_size: '', prefill_batch_size: '1', prefill_num_workers: '2', prefill_tp_size: '2', decode_batch_size: '16', decode_num_workers: '3', decode_tp_size: '1', decode_attention_dp_size: '4' }),
      () => true,
    );
    if (typeof d === 'string' || d.mode !== 'disagg') throw new Error(String(d));
    expect(d.concurrency).toBe(16 * 3 * 4);
    expect(d.prefill).toMatchObject({ tp: 2, replicas: 2 });
    expect(parseE2eRow(csv({ mode: 'disagg', prefill_num_workers: '' }), () => true)).toMatch(/worker counts/);
  });

  it('builds a closed-loop fixed-length spec with the row shape and engine limits', () => {
    const row = parseE2eRow(csv({}), () => true);
    if (typeof row === 'string') throw new Error(row);
    const spec = replaySpecForRow(row, 80e9, { requestRatio: 4, maxRequests: 100, lengthSpread: 0 });
    expect(spec.workload).toMatchObject({ isl: 1024, osl: 128, concurrency: 64, random_range_ratio: 1 });
    expect(spec.workload.num_request_ratio! * 64).toBeCloseTo(128, 9);
    expect(spec.concurrency).toBe(64);
    expect(spec.backend_deployment.agg_engine_args).toMatchObject({ max_num_seqs: 64, enable_prefix_caching: false, max_num_batched_tokens: 8192 });
    expect(spec.backend_deployment.parallel_config).toMatchObject({ tp: 2, attention_dp: 2 });
    expect(requestCount(64, { requestRatio: 4, maxRequests: 100 })).toBe(128); // at least 2 × concurrency
    expect(requestCount(10, { requestRatio: 4, maxRequests: 100 })).toBe(40);
    // maxWork caps requests by emitted tokens, never below 2 × concurrency.
    expect(requestCountForRow({ concurrency: 64, osl: 1000 })).toBe(600);
    expect(requestCountForRow({ concurrency: 64, osl: 1000 }, { maxWork: 200_000 })).toBe(200);
    expect(requestCountForRow({ concurrency: 64, osl: 8000 }, { maxWork: 200_000 })).toBe(128);
  });

  it('spreads lengths symmetrically around the row (mean kept), agg rows only by default', () => {
    expect(spreadLengths(1000, 0)).toEqual({ max: 1000, ratio: 1 });
    const { max, ratio } = spreadLengths(1024, 0.1);
    expect(max).toBe(1126);
    // The synthetic workload draws uniformly in [ratio·max, max]: mean within a token of the row's.
    expect(Math.abs((max * (1 + ratio)) / 2 - 1024)).toBeLessThan(1);
    const agg = parseE2eRow(csv({}), () => true);
    if (typeof agg === 'string') throw new Error(agg);
    const w = replaySpecForRow(agg, 80e9).workload;
    expect(w.osl).toBe(spreadLengths(128, AGG_LENGTH_SPREAD).max);
    expect(w.random_range_ratio).toBeLessThan(1);
    // SGLang: desynchronised like the others, except rows of the lock-step gap-sweep harness.
    const sg = parseE2eRow(csv({ backend: 'sglang' }), () => true);
    const sgSweep = parseE2eRow(csv({ backend: 'sglang', silicon_data_source: 'source_file=/x/aic-auto-gap-analysis/data/h100_sxm/a.csv' }), () => true);
    if (typeof sg === 'string' || typeof sgSweep === 'string') throw new Error('sglang rows');
    expect(sgSweep.harness).toBe('gap-sweep');
    expect(defaultLengthSpread(sg)).toBe(AGG_LENGTH_SPREAD);
    expect(AGG_LENGTH_SPREAD).toBeGreaterThan(0);
    expect(defaultLengthSpread(sgSweep)).toBe(0); // no version recorded: the harness's older runs
    expect(defaultLengthSpread({ ...sgSweep, backendVersion: '0.5.1.post1' })).toBe(0);
    expect(defaultLengthSpread({ ...sgSweep, backendVersion: '0.5.6.post2' })).toBe(AGG_LENGTH_SPREAD);
    expect(defaultLengthSpread({ ...sgSweep, backendVersion: '0.5.8.post1' })).toBe(AGG_LENGTH_SPREAD);
    expect(defaultLengthSpread({ ...sgSweep, backend: 'trtllm' })).toBe(AGG_LENGTH_SPREAD);
    const dis = parseE2eRow(
      csv({ mode: 'disagg', silicon_data_source: '', batch_size: '', prefill_batch_size: '1', prefill_num_workers: '1', prefill_tp_size: '1', decode_batch_size: '8', decode_num_workers: '1', decode_tp_size: '1' }),
      () => true,
    );
    if (typeof dis === 'string') throw new Error(dis);
    expect(replaySpecForRow(dis, 80e9).workload).toMatchObject({ isl: 1024, osl: 128, random_range_ratio: 1 });
  });

  it('a fixed-length closed loop stays phase-locked in prefill waves; the length spread breaks it', () => {
    // 8 clients × 1024-token prompts fill one 8192-token pass: with exact lengths the start-up wave
    // finishes together and re-arrives together forever, so every request waits for 8 prompts.
    const row = parseE2eRow(csv({ model_path: 'meta-llama/Llama-3.1-8B-Instruct', tp_size: '1', attention_dp_size: '1', silicon_data_source: 'silicon_concurrency=8', osl: '64' }), () => true);
    if (typeof row === 'string') throw new Error(row);
    const locked = replayRow(row, { replayOverhead: null, lengthSpread: 0 });
    const spread = replayRow(row, { replayOverhead: null, lengthSpread: 0.1 });
    expect(spread.ttftMs).toBeLessThan(0.6 * locked.ttftMs);
    // Decode speed is hardly affected by the phase.
    expect(Math.abs(spread.tpotMs / locked.tpotMs - 1)).toBeLessThan(0.25);
  });

  it('means follow Clarification D and the steady window drops the start-up wave', () => {
    const done = [
      { id: 0, arrivalMs: 0, firstTokenMs: 100, doneMs: 190, emitted: 10 },
      { id: 1, arrivalMs: 190, firstTokenMs: 200, doneMs: 209, emitted: 10 },
    ];
    expect(meanLatencies(done, 0)).toEqual({ ttftMs: 55, tpotMs: 5.5, n: 2 });
    expect(meanLatencies(done, 1)).toEqual({ ttftMs: 10, tpotMs: 1, n: 1 });
    // The benchmark window weighs the start-up wave (ids < concurrency) by the burst share.
    expect(windowParts(done, 1)).toEqual({ burstTtftMs: 100, restTtftMs: 10, burstTpotMs: 10, restTpotMs: 1 });
    expect(atBurstShare(windowParts(done, 1), 0.25)).toEqual({ ttftMs: 0.25 * 100 + 0.75 * 10, tpotMs: 0.25 * 10 + 0.75 * 1 });
    expect(atBurstShare(windowParts(done, 2), 0.25)).toEqual({ ttftMs: 55, tpotMs: 5.5 }); // no request after the wave
    const s = summarise('k', [{ id: 'a', key: 'k', measuredTtftMs: 1, measuredTpotMs: 1, ttftMs: 1.2, tpotMs: 0.9, ttftErr: 0.2, tpotErr: -0.1 }]);
    expect(s).toMatchObject({ rows: 1, ttftMedian: 0.2, tpotBias: -0.1 });
    expect(s.tpotMedian).toBeCloseTo(0.1, 12);
  });

  it('replay corrections: admission delay adds to TTFT, pass scale multiplies pass times', () => {
    const row = parseE2eRow(csv({ model_path: 'meta-llama/Llama-3.1-8B-Instruct', tp_size: '1', attention_dp_size: '1', silicon_data_source: 'silicon_concurrency=1', isl: '512', osl: '16' }), () => true);
    if (typeof row === 'string') throw new Error(row);
    const base = replayRow(row, { replayOverhead: null });
    const corr = replayRow(row, { replayOverhead: { passScale: 2, admissionMs: 50, disaggAdmissionMs: 0, source: 'test', rows: 0 } });
    // Concurrency 1: requests never overlap, so both corrections act exactly.
    expect(corr.ttftMs).toBeCloseTo(2 * base.ttftMs + 50, 6);
    expect(corr.tpotMs).toBeCloseTo(2 * base.tpotMs, 6);
  });

  it('fits the pass scale from TPOT and agg admission delays only for the backends asked', () => {
    // Synthetic raw replays: the truth is TPOT = 1.2·TPOT₀ and TTFT = 1.2·TTFT₀ + 40 ms.
    const raw: RawReplay[] = [];
    for (const backend of ['vllm', 'sglang'])
      for (let i = 0; i < 20; i++) {
        const ttft0 = 50 + 10 * i;
        const tpot0 = 5 + i / 4;
        raw.push({ id: `${backend}${i}`, sku: 'h100_sxm', backend, mode: 'agg', ttft0, tpot0, ttftMs: 1.2 * ttft0 + 40, tpotMs: 1.2 * tpot0 });
      }
    const fit = fitReplayOverheads(raw, 12, 'all', (b) => b === 'vllm');
    expect(fit.get('h100_sxm/vllm')).toMatchObject({ passScale: 1.2, admissionMs: 40, rows: 20 });
    expect(fit.get('h100_sxm/sglang')).toMatchObject({ passScale: 1.2, admissionMs: 0 });
    expect(fitReplayOverheads(raw, 12, 'disagg').get('h100_sxm/vllm')!.admissionMs).toBe(0);
  });

  it('fits an architecture class its own corrections when it has rows enough, and applies them to agg rows only', () => {
    // Dense rows: TTFT = TTFT₀ + 10; MLA-MoE rows: TTFT = 1.1·TTFT₀ + 120, TPOT = 1.1·TPOT₀.
    const raw: RawReplay[] = [];
    for (let i = 0; i < 40; i++) {
      const mla = i % 2 === 1;
      const ttft0 = 50 + 7 * i;
      const tpot0 = 5 + i / 8;
      const s = mla ? 1.1 : 1;
      raw.push({ id: `r${i}`, sku: 'b200_sxm', backend: 'trtllm', mode: 'agg', arch: mla ? 'mla-moe' : 'gqa-dense', ttft0, tpot0, ttftMs: s * ttft0 + (mla ? 120 : 10), tpotMs: s * tpot0 });
    }
    const fit = fitReplayOverheads(raw, 12).get('b200_sxm/trtllm')!;
    expect(fit.byArchitecture?.['mla-moe']).toMatchObject({ passScale: 1.1, admissionMs: 120, rows: 20 });
    expect(fit.byArchitecture?.['gqa-dense']).toMatchObject({ passScale: 1, admissionMs: 10, rows: 20 });
    expect(correctionsFor({ mode: 'agg', arch: 'mla-moe' }, fit)).toEqual({ passScale: 1.1, admissionMs: 120 });
    expect(correctionsFor({ mode: 'disagg', arch: 'mla-moe' }, fit)).toEqual({ passScale: fit.passScale, admissionMs: fit.disaggAdmissionMs });
    expect(predictRaw(raw[1], fit).ttftMs).toBeCloseTo(raw[1].ttftMs, 9);
    // Too few rows of a class: no entry (the (sku, backend) values apply).
    expect(fitReplayOverheads(raw.slice(0, 20), 12).get('b200_sxm/trtllm')!.byArchitecture).toBeUndefined();
    // The (sku, backend) values are fitted on the rows no class entry covers, when there are enough.
    const dense = Array.from({ length: 12 }, (_, i): RawReplay => {
      const ttft0 = 60 + 9 * i;
      const tpot0 = 4 + i / 8;
      return { id: `d${i}`, sku: 'b200_sxm', backend: 'trtllm', mode: 'agg', arch: i < 8 ? 'gqa-moe' : 'mla-dense', ttft0, tpot0, ttftMs: 0.9 * ttft0 + 50, tpotMs: 0.9 * tpot0 };
    });
    const mixed = fitReplayOverheads([...raw, ...dense], 12).get('b200_sxm/trtllm')!;
    expect(mixed).toMatchObject({ passScale: 0.9, admissionMs: 50 });
    expect(Object.keys(mixed.byArchitecture ?? {}).sort()).toEqual(['gqa-dense', 'mla-moe']);
  });

  it('fits the burst share at which agg rows are read, and maps corrected replays back to raw terms', () => {
    // Truth: measured TTFT = 0.3·wave + 0.7·rest + 40 ms, TPOT = the same mix of the parts.
    const raw: RawReplay[] = Array.from({ length: 24 }, (_, i) => {
      const parts = { burstTtftMs: 400 + 40 * i, restTtftMs: 60 + 5 * (i % 7), burstTpotMs: 10 + i / 4, restTpotMs: 9 + i / 5 };
      const m = atBurstShare(parts, 0.3);
      return { id: `w${i}`, sku: 'h100_sxm', backend: 'vllm', mode: 'agg', arch: 'gqa-dense', ttft0: parts.restTtftMs, tpot0: parts.restTpotMs, ttftMs: m.ttftMs + 40, tpotMs: m.tpotMs, parts };
    });
    expect(fitBurstShares(raw).get('h100_sxm/vllm')).toBeCloseTo(0.3, 9);
    const fit = fitWithBurstShares(raw).get('h100_sxm/vllm')!;
    expect(fit).toMatchObject({ passScale: 1, admissionMs: 40 });
    expect(fit.burstShare).toBeCloseTo(0.3, 9);
    expect(predictRaw(raw[5], fit).ttftMs).toBeCloseTo(raw[5].ttftMs, 6);
    // A replay under the fit maps back onto the raw replay.
    const corrected = { ttftMs: raw[5].ttftMs, tpotMs: raw[5].tpotMs, parts: { ...raw[5].parts!, burstTtftMs: raw[5].parts!.burstTtftMs + 40, restTtftMs: raw[5].parts!.restTtftMs + 40 } };
    expect(unapplyFit(raw[5], corrected, fit).parts).toEqual(raw[5].parts);
  });

  it('the replay applies a class correction to aggregated serving of that class', () => {
    const row = parseE2eRow(csv({ model_path: 'meta-llama/Llama-3.1-8B-Instruct', tp_size: '1', attention_dp_size: '1', silicon_data_source: 'silicon_concurrency=1', isl: '512', osl: '16' }), () => true);
    if (typeof row === 'string') throw new Error(row);
    const base = { passScale: 1, admissionMs: 0, disaggAdmissionMs: 0, source: 'test', rows: 0 };
    const plain = replayRow(row, { replayOverhead: base });
    const other = replayRow(row, { replayOverhead: { ...base, byArchitecture: { 'mla-moe': { passScale: 3, admissionMs: 500, rows: 1 } } } });
    const own = replayRow(row, { replayOverhead: { ...base, byArchitecture: { 'gqa-dense': { passScale: 2, admissionMs: 50, rows: 1 } } } });
    expect(other.ttftMs).toBe(plain.ttftMs);
    expect(own.ttftMs).toBeCloseTo(2 * plain.ttftMs + 50, 6);
    expect(own.tpotMs).toBeCloseTo(2 * plain.tpotMs, 6);
  });

  it('folds split rows by id hash, stably', () => {
    expect(foldOf('abc')).toBe(foldOf('abc'));
    const ids = Array.from({ length: 200 }, (_, i) => `row${i}`);
    const ones = ids.filter((id) => foldOf(id) === 1).length;
    expect(ones).toBeGreaterThan(70);
    expect(ones).toBeLessThan(130);
  });
});

describe.skipIf(!existsSync(dir))('replay vs e2e/silicon_dev.csv (CI subset)', () => {
  it('reports median |rel err| per (sku, backend, mode) and meets the ratchet floors', () => {
    const { rows } = loadE2eRows(dir, hasFp4);
    const subset = ciSubset(rows, 8, 150_000);
    const report = evaluateReplayAccuracy(subset);
    console.log(`replay accuracy, CI subset: ${subset.length} of ${rows.length} replayable rows\n${formatAccuracyReport(report)}`);
    // A row the memory model finds KV-infeasible is a verdict, not a replay failure (one DeepSeek-R1
    // fp8 tp4 b200 row sits at the edge of HBM); anything else failing is a bug.
    expect(report.failures.filter((f) => !f.error.startsWith('infeasible (kv_capacity)'))).toEqual([]);
    expect(report.failures.length).toBeLessThanOrEqual(1);
    expect(subset.length).toBeLessThanOrEqual(80);
    for (const mode of ['agg', 'disagg'] as const) {
      const g = report.groups.find((x) => x.key === `all/${mode}`);
      expect(g, `no ${mode} rows in the subset`).toBeDefined();
      expect(g!.ttftMedian).toBeLessThan(FLOORS[mode].ttft);
      expect(g!.tpotMedian).toBeLessThan(FLOORS[mode].tpot);
    }
  });
});
