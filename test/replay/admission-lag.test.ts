// The engine's admission lag (EngineConfig.admissionLagPasses, fitted as `overhead.replay.
// admissionLagPasses`): a request reaching a busy rank waits that many of the rank's passes before its
// first scheduling, so TTFT (and E2E) grow by about L pass times while TPOT stays; an idle rank runs no
// passes and takes a request at once. Same for every backend's scheduler.
import { describe, expect, it } from 'vitest';
import { simulate } from '../../src/replay/cluster.js';
import { replayDeployment } from '../../src/replay/run.js';
import { syntheticPlan } from '../../src/replay/workload/synthetic.js';
import { aggDeployment } from './fixture.js';

function closedLoop(n: number, isl: number, osl: number, concurrency: number) {
  return syntheticPlan(
    { isl, osl, randomRangeRatio: 1, seed: 3, sharedPrefixRatio: 0, numPrefixGroups: 0, turnsPerSession: 1, interTurnDelayMs: 0, numRequests: n },
    { kind: 'concurrency', concurrency },
  );
}

describe('admission lag', () => {
  for (const backend of ['vllm', 'sglang', 'trtllm'] as const) {
    it(`${backend}: a busy rank admits L passes late — TTFT grows by about L pass times, TPOT stays`, () => {
      const plan = () => closedLoop(96, 256, 64, 8);
      const run = (lag: number) => replayDeployment(aggDeployment(1, { backend, ...(lag ? { admissionLagPasses: lag } : {}) }), plan(), { specHash: 't', sla: null }).metrics;
      const base = run(0);
      const lagged = run(10);
      expect(lagged.completed_requests).toBe(96);
      // A decode pass of ~8 sequences takes ~2.4 ms on the fixture (2 ms + 0.05 ms/seq + context).
      const extra = lagged.mean_ttft_ms - base.mean_ttft_ms;
      expect(extra).toBeGreaterThan(10 * 2 * 0.6);
      expect(extra).toBeLessThan(10 * 3.5);
      expect(Math.abs(lagged.mean_tpot_ms / base.mean_tpot_ms - 1)).toBeLessThan(0.1);
      // Deterministic.
      expect(run(10)).toEqual(lagged);
    });
  }

  it('an idle rank takes a request at once, and every request waits at least L passes on a busy one', () => {
    const idle = (lag: number) => replayDeployment(aggDeployment(1, { admissionLagPasses: lag }), closedLoop(8, 256, 32, 1), { specHash: 't', sla: null }).metrics;
    expect(idle(25)).toEqual(idle(0));
    // Two clients: each request after the first two arrives while the other one decodes.
    const out = simulate(aggDeployment(1, { admissionLagPasses: 5 }), closedLoop(20, 128, 40, 2));
    const late = out.recorder.completed.filter((r) => r.id >= 2);
    // 5 decode passes of one sequence (~2.05 ms each) at least, then its prefill pass.
    for (const r of late) expect(r.firstTokenMs - r.arrivalMs).toBeGreaterThan(5 * 2);
  });
});
