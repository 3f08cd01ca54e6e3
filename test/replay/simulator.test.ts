import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/config/canonical-json.js';
import { replayDeployment } from '../../src/replay/run.js';
import { promptBlockHashes, type WorkloadPlan } from '../../src/replay/workload/request.js';
import { syntheticPlan } from '../../src/replay/workload/synthetic.js';
import { mooncakePlan, type MooncakeRow } from '../../src/replay/workload/mooncake.js';
import { aggDeployment, disaggDeployment, FIXTURE_PERF as C, linearPerf } from './fixture.js';
import type { ResolvedDeployment } from '../../src/replay/deployment.js';

const opts = { specHash: 'test', sla: null };

function synth(n: number, isl: number, osl: number, load: { concurrency?: number; rate?: number }, extra: Partial<Parameters<typeof syntheticPlan>[0]> = {}): WorkloadPlan {
  return syntheticPlan(
    { isl, osl, randomRangeRatio: 1, seed: 1, sharedPrefixRatio: 0, numPrefixGroups: 0, turnsPerSession: 1, interTurnDelayMs: 0, numRequests: n, ...extra },
    load.rate !== undefined ? { kind: 'rate', requestRate: load.rate } : { kind: 'concurrency', concurrency: load.concurrency! },
  );
}

function run(dep: ResolvedDeployment, plan: WorkloadPlan, sla: Parameters<typeof replayDeployment>[2]['sla'] = null) {
  return replayDeployment(dep, plan, { ...opts, sla }).metrics;
}

describe('replay simulator (fixture perf model)', () => {
  it('a lone request: TTFT is the prefill pass, TPOT the decode step', () => {
    const isl = 1000;
    const osl = 10;
    const m = run(aggDeployment(), synth(1, isl, osl, { concurrency: 1 }));
    const prefill = C.overheadMs + C.perPrefillTokenMs * isl + C.perAttnPairMs * isl * (isl / 2);
    let decode = 0;
    for (let k = 0; k < osl - 1; k++) decode += C.overheadMs + C.perDecodeSeqMs + C.perContextTokenMs * (isl + k);
    expect(m.mean_ttft_ms).toBeCloseTo(prefill, 9);
    expect(m.mean_tpot_ms).toBeCloseTo(decode / (osl - 1), 9);
    expect(m.mean_e2e_latency_ms).toBeCloseTo(prefill + decode, 9);
    expect(m.mean_itl_ms).toBeCloseTo(decode / (osl - 1), 9);
    expect(m.completed_requests).toBe(1);
    expect(m.duration_ms).toBeCloseTo(prefill + decode, 9);
    expect(m.gpu_hours).toBeCloseTo((prefill + decode) / 3_600_000, 12);
    expect(m.avg_gpu).toBeCloseTo(1, 12);
  });

  it('chunked prefill: a prompt over the token budget takes several passes', () => {
    const m = run(aggDeployment(1, { maxNumBatchedTokens: 512 }), synth(1, 1024, 2, { concurrency: 1 }));
    const chunk1 = C.overheadMs + C.perPrefillTokenMs * 512 + C.perAttnPairMs * 512 * 256;
    const chunk2 = C.overheadMs + C.perPrefillTokenMs * 512 + C.perAttnPairMs * 512 * (512 + 256);
    expect(m.mean_ttft_ms).toBeCloseTo(chunk1 + chunk2, 9);
  });

  it('same spec and seed give byte-identical metrics', () => {
    const plan = () => synth(150, 800, 60, { rate: 40 }, { randomRangeRatio: 0.5, sharedPrefixRatio: 0.5, numPrefixGroups: 4 });
    const dep = () => aggDeployment(3, {}, { mode: 'kv_router', temperature: 0.5 });
    const a = canonicalJson(run(dep(), plan()));
    const b = canonicalJson(run(dep(), plan()));
    expect(a).toBe(b);
    const c = canonicalJson(run(aggDeployment(3, {}, { mode: 'kv_router', temperature: 0.5 }), synth(150, 800, 60, { rate: 40 }, { randomRangeRatio: 0.5, seed: 2 })));
    expect(c).not.toBe(a);
  });

  it("closed loop obeys Little's law (concurrency ≈ throughput × latency)", () => {
    for (const conc of [4, 16]) {
      const m = run(aggDeployment(), synth(60 * conc, 300, 40, { concurrency: conc }, { randomRangeRatio: 0.5 }));
      const little = (m.request_throughput_rps * m.mean_e2e_latency_ms) / 1000;
      expect(Math.abs(little - conc) / conc).toBeLessThan(0.02);
    }
  });

  it('throughput saturates at max_num_seqs', () => {
    const tput = (conc: number) => run(aggDeployment(1, { maxNumSeqs: 8 }), synth(40 * conc, 200, 50, { concurrency: conc })).output_throughput_tok_s;
    const t4 = tput(4);
    const t8 = tput(8);
    const t32 = tput(32);
    expect(t8 / t4).toBeGreaterThan(1.5);
    expect(Math.abs(t32 / t8 - 1)).toBeLessThan(0.03);
  });

  it('throughput saturates at KV capacity (and preempts rather than fail)', () => {
    // 8 requests of 200 + 50 tokens fit 32 blocks of 64.
    const capped = (conc: number) => run(aggDeployment(1, { kvCapacityTokensPerRank: 32 * 64 }), synth(30 * conc, 200, 50, { concurrency: conc }));
    const free = (conc: number) => run(aggDeployment(1), synth(30 * conc, 200, 50, { concurrency: conc }));
    const c8 = capped(8);
    const c32 = capped(32);
    expect(c32.completed_requests).toBe(30 * 32);
    expect(c32.output_throughput_tok_s / c8.output_throughput_tok_s).toBeLessThan(1.1);
    expect(free(32).output_throughput_tok_s / free(8).output_throughput_tok_s).toBeGreaterThan(1.5);
  });

  it('KV pressure with growing contexts preempts and recomputes, still completing every request', () => {
    const m = run(aggDeployment(1, { kvCapacityTokensPerRank: 20 * 64 }), synth(64, 100, 300, { concurrency: 16 }));
    expect(m.preemptions).toBeGreaterThan(0);
    expect(m.completed_requests).toBe(64);
  });

  it('TRT-LLM guaranteed-no-evict admission never preempts', () => {
    const m = run(aggDeployment(1, { kvCapacityTokensPerRank: 20 * 64, backend: 'trtllm' }), synth(64, 100, 300, { concurrency: 16 }));
    expect(m.preemptions).toBe(0);
    expect(m.completed_requests).toBe(64);
  });

  it('SGLang never mixes prefill and decode in one pass', () => {
    const perf = linearPerf();
    let mixed = 0;
    const wrapped = { passMs: (w: Parameters<typeof perf.passMs>[0]) => ((mixed += w.prefillSeqs > 0 && w.decodeSeqs > 0 ? 1 : 0), perf.passMs(w)) };
    const dep = aggDeployment(1, { backend: 'sglang' });
    dep.pools[0].perf = wrapped;
    const m = run(dep, synth(100, 300, 30, { concurrency: 8 }, { randomRangeRatio: 0.5 }));
    expect(m.completed_requests).toBe(100);
    expect(mixed).toBe(0);
    const vdep = aggDeployment(1);
    let vmixed = 0;
    vdep.pools[0].perf = { passMs: (w) => ((vmixed += w.prefillSeqs > 0 && w.decodeSeqs > 0 ? 1 : 0), perf.passMs(w)) };
    run(vdep, synth(100, 300, 30, { concurrency: 8 }, { randomRangeRatio: 0.5 }));
    expect(vmixed).toBeGreaterThan(0);
  });

  it('with an unlimited cache the prefix hit rate equals the trace ideal reuse', () => {
    // Sequential arrivals (1 s apart) so every earlier prompt is cached when the next one arrives.
    const rows: MooncakeRow[] = [];
    let x = 1;
    for (let i = 0; i < 60; i++) {
      const shared = [100 + (i % 3), 200 + (i % 3), 300 + (i % 6)].slice(0, 1 + (i % 3));
      const ids = [...shared, ...Array.from({ length: 1 + (i % 4) }, () => 10_000 + x++)];
      rows.push({ line: i + 1, timestampMs: i * 1000, inputLength: ids.length * 512 - (i % 5) * 37, outputLength: 4, hashIds: ids, sessionId: null, delayMs: null });
    }
    const plan = mooncakePlan(rows, { traceBlockSize: 512, arrivalSpeedupRatio: 1, replayConcurrency: null });
    const m = run(aggDeployment(1, { kvCapacityTokensPerRank: 1e9 }), plan);
    const seen = new Set<number>();
    let hit = 0;
    let total = 0;
    for (const s of plan.sessions) {
      const t = s.turns[0];
      const h = promptBlockHashes(t.prompt, t.isl, 64);
      const cap = Math.floor((t.isl - 1) / 64);
      let j = 0;
      while (j < Math.min(cap, h.length) && seen.has(h[j])) j++;
      hit += j * 64;
      total += t.isl;
      h.forEach((v) => seen.add(v));
    }
    expect(hit).toBeGreaterThan(0);
    expect(m.prefix_cache_hit_rate).toBeCloseTo(hit / total, 12);
  });

  it('on a prefix-heavy multi-worker trace kv_router beats round_robin on TTFT', () => {
    const plan = () => synth(600, 4096, 16, { rate: 25 }, { sharedPrefixRatio: 0.9, numPrefixGroups: 8 });
    const rr = run(aggDeployment(4, {}, { mode: 'round_robin' }), plan());
    const kv = run(aggDeployment(4, {}, { mode: 'kv_router', overlapScoreCredit: 1, prefillLoadScale: 1 }), plan());
    expect(kv.prefix_cache_hit_rate).toBeGreaterThan(rr.prefix_cache_hit_rate);
    expect(kv.mean_ttft_ms).toBeLessThan(rr.mean_ttft_ms);
  });

  it('disaggregated: the first token reaches the client with the decode worker\'s first step (and the second token)', () => {
    const isl = 1000;
    const osl = 10;
    const m = run(disaggDeployment(1, 1, null), synth(1, isl, osl, { concurrency: 1 }));
    const prefill = C.overheadMs + C.perPrefillTokenMs * isl + C.perAttnPairMs * isl * (isl / 2);
    const step = (k: number): number => C.overheadMs + C.perDecodeSeqMs + C.perContextTokenMs * (isl + k);
    let decode = 0;
    for (let k = 0; k < osl - 1; k++) decode += step(k);
    expect(m.mean_ttft_ms).toBeCloseTo(prefill + step(0), 9);
    expect(m.mean_e2e_latency_ms).toBeCloseTo(prefill + decode, 9);
    expect(m.mean_tpot_ms).toBeCloseTo((decode - step(0)) / (osl - 1), 9);
    expect(m.completed_requests).toBe(1);
  });

  it('disaggregated TTFT includes the KV transfer and grows as bandwidth drops', () => {
    const plan = () => synth(100, 2000, 20, { rate: 4 });
    const fast = run(disaggDeployment(1, 1, 200), plan());
    const slow = run(disaggDeployment(1, 1, 2), plan());
    const none = run(disaggDeployment(1, 1, null), plan());
    expect(slow.mean_ttft_ms).toBeGreaterThan(fast.mean_ttft_ms);
    expect(fast.mean_ttft_ms).toBeGreaterThan(none.mean_ttft_ms);
    // 2000 tokens × 128 KiB at 2 GB/s.
    expect(slow.mean_kv_transfer_ms).toBeCloseTo((2000 * 131072) / 2e6, 6);
    expect(slow.completed_requests).toBe(100);
    expect(slow.gpu_hours).toBeGreaterThan(0);
  });

  it('goodput counts only requests inside every SLA bound', () => {
    const plan = () => synth(200, 500, 40, { rate: 60 });
    const all = run(aggDeployment(), plan());
    const loose = run(aggDeployment(), plan(), { ttft_ms: 1e9, itl_ms: 1e9 });
    const tight = run(aggDeployment(), plan(), { ttft_ms: all.p50_ttft_ms, itl_ms: 1e9 });
    expect(loose.goodput_output_throughput_tok_s).toBeCloseTo(all.output_throughput_tok_s, 9);
    expect(tight.goodput_request_throughput_rps).toBeLessThan(all.request_throughput_rps);
    expect(tight.goodput_request_throughput_rps).toBeGreaterThan(0.4 * all.request_throughput_rps);
  });

  it('attention-DP ranks schedule separately and the pass takes the slowest rank', () => {
    const one = run(aggDeployment(1, { attentionDp: 1 }), synth(200, 300, 30, { concurrency: 32 }));
    const dp4 = run(aggDeployment(1, { attentionDp: 4 }), synth(200, 300, 30, { concurrency: 32 }));
    expect(dp4.completed_requests).toBe(200);
    // Four ranks share the work, each pass costs the slowest rank: faster than one rank doing all.
    expect(dp4.output_throughput_tok_s).toBeGreaterThan(one.output_throughput_tok_s);
  });

  it('MTP emits more than one token per decode step', () => {
    const base = run(aggDeployment(1), synth(20, 200, 100, { concurrency: 4 }));
    const mtp = run(aggDeployment(1, { nextn: 2 }), synth(20, 200, 100, { concurrency: 4 }));
    expect(mtp.mean_tpot_ms).toBeLessThan(base.mean_tpot_ms / 1.8);
  });
});
