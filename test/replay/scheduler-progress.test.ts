// Progress guarantee of the per-rank schedulers under over-committed KV (issue #5 livelock): every
// closed loop must finish, whatever the backend. The perf model below counts passes and aborts the run
// far beyond any sane pass count, so a livelock fails fast instead of hanging the suite.
import { describe, expect, it } from 'vitest';
import type { PassWork } from '../../src/hardware/pass.js';
import type { ResolvedDeployment } from '../../src/replay/deployment.js';
import type { EngineConfig } from '../../src/replay/engine/engine-config.js';
import { replayDeployment } from '../../src/replay/run.js';
import { syntheticPlan } from '../../src/replay/workload/synthetic.js';
import { aggDeployment, linearPerf } from './fixture.js';

/** A plan of `n` fixed-length requests in a closed loop. */
function closedLoop(n: number, isl: number, osl: number, concurrency: number) {
  return syntheticPlan(
    { isl, osl, randomRangeRatio: 1, seed: 1, sharedPrefixRatio: 0, numPrefixGroups: 0, turnsPerSession: 1, interTurnDelayMs: 0, numRequests: n },
    { kind: 'concurrency', concurrency },
  );
}

/** An agg deployment whose perf model throws after `maxPasses` passes (a livelock detector). */
function bounded(over: Partial<EngineConfig>, maxPasses: number): { dep: ResolvedDeployment; passes: () => number; mixed: () => number } {
  const perf = linearPerf();
  let passes = 0;
  let mixed = 0;
  const dep = aggDeployment(1, over);
  dep.pools[0].perf = {
    passMs(w: PassWork): number {
      if (++passes > maxPasses) throw new Error(`no progress: ${passes} passes`);
      if (w.prefillSeqs > 0 && w.decodeSeqs > 0) mixed++;
      return perf.passMs(w);
    },
  };
  return { dep, passes: () => passes, mixed: () => mixed };
}

// Over-committed: 16 requests of 256 + 512 tokens want 12,288 tokens of KV; the rank holds 9,600
// (150 blocks of 64), and the token budget (256) is one prompt, so a recomputed prompt + outputs needs
// two chunks. The scheduler before the fix livelocked here (found by a grid over tiny configs): a
// preempted request re-prefilled its first chunk into the blocks it had just freed, found no room for
// the second, preempted itself and started over — prefill-first SGLang never reached a decode pass.
// Useful work is ~ 64 × 512 / 12 ≈ 2.7k decode passes.
const N = 64;
const ISL = 256;
const OSL = 512;
const CONC = 16;
const CAP = 150 * 64;
const MAX_PASSES = 100_000;

describe('scheduler progress under over-committed KV', () => {
  for (const backend of ['sglang', 'vllm', 'trtllm'] as const) {
    it(`${backend}: every request of an over-committed closed loop completes`, () => {
      const { dep, passes } = bounded({ backend, kvCapacityTokensPerRank: CAP, maxNumBatchedTokens: 256 }, MAX_PASSES);
      const m = replayDeployment(dep, closedLoop(N, ISL, OSL, CONC), { specHash: 't', sla: null }).metrics;
      expect(m.completed_requests).toBe(N);
      // Far from the abort bound: recompute waste stays a small multiple of the useful work.
      expect(passes()).toBeLessThan(5 * ((N * OSL) / 4));
    });
  }

  it('sglang retracts instead of thrashing: few retractions, prefill never mixed with decode, deterministic', () => {
    const a = bounded({ backend: 'sglang', kvCapacityTokensPerRank: CAP, maxNumBatchedTokens: 256 }, MAX_PASSES);
    const ma = replayDeployment(a.dep, closedLoop(N, ISL, OSL, CONC), { specHash: 't', sla: null }).metrics;
    const b = bounded({ backend: 'sglang', kvCapacityTokensPerRank: CAP, maxNumBatchedTokens: 256 }, MAX_PASSES);
    const mb = replayDeployment(b.dep, closedLoop(N, ISL, OSL, CONC), { specHash: 't', sla: null }).metrics;
    expect(ma).toEqual(mb);
    expect(a.mixed()).toBe(0);
    // Conservative admission (new_token_ratio reservation) keeps retractions rare: well under one per request.
    expect(ma.preemptions).toBeLessThan(N);
  });

  it('sglang admits conservatively: prompts are held back while the running requests\' outputs need the room', () => {
    // 150 blocks (9,600 tokens): all 16 prompts (4,096 tokens) fit at once, their outputs (8,192 more) do
    // not; SGLang's reservation (prompt + whole output for the new request, 0.7 × remaining outputs for
    // the running ones) admits fewer at a time than vLLM, which admits every prompt that fits now.
    const peak = (backend: 'sglang' | 'vllm'): number => {
      let most = 0;
      const b = bounded({ backend, kvCapacityTokensPerRank: 150 * 64, maxNumBatchedTokens: 8192 }, MAX_PASSES);
      const inner = b.dep.pools[0].perf;
      b.dep.pools[0].perf = { passMs: (w: PassWork) => ((most = Math.max(most, w.decodeSeqs + w.prefillSeqs)), inner.passMs(w)) };
      replayDeployment(b.dep, closedLoop(N, ISL, OSL, CONC), { specHash: 't', sla: null });
      return most;
    };
    const sg = peak('sglang');
    expect(sg).toBeLessThan(peak('vllm'));
    // 9,600 tokens hold 12 whole requests of 768: the first pass admits exactly those 12 (each new one
    // reserves its whole output); later passes reserve only 0.7 × the running outputs, so SGLang
    // over-admits a little on purpose (retraction is its fallback) but stays below the full 16.
    expect(sg).toBeGreaterThanOrEqual(12);
  });
});
