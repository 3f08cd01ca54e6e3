// What the report's mean_ttft_ms / mean_tpot_ms cover (issue 14 item 3; README "Calibration and
// accuracy"): plain means over EVERY completed request of the replay — the closed loop's start-up wave
// included, no steady-state window, no warm-up trimming — with TTFT timed from the request's send and
// TPOT per request = (e2e − TTFT)/(output tokens − 1), requests of one output token left out of TPOT
// only; rejected (never completed) requests are in neither. The same definition is read by all three
// consumers: the calibration/accuracy harness (src/calibration/evaluate.ts), `spica replay` and a
// sweep (`spica sweep --local`, whose trials rank on these very fields).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayRow } from '../../src/calibration/evaluate.js';
import { rowConfig } from '../../src/calibration/rowConfig.js';
import { llama8bH100Row } from '../support/e2e-row.js';
import { main } from '../../src/cli/main.js';
import { configFromObject } from '../../src/config/load.js';
import { loadSystem } from '../../src/hardware/systems.js';
import type { ReplayOutcome } from '../../src/replay/cluster.js';
import { simulate } from '../../src/replay/cluster.js';
import { replaySpecFromConfig } from '../../src/replay/from-config.js';
import { MetricsRecorder } from '../../src/replay/metrics-recorder.js';
import { computeMetrics } from '../../src/replay/report.js';
import { resolveReplay, runReplay } from '../../src/replay/resolve.js';

function outcome(done: { arrivalMs: number; firstTokenMs: number; doneMs: number; emitted: number }[], rejected: number): ReplayOutcome {
  const rec = new MetricsRecorder();
  done.forEach((d, id) => {
    rec.completed.push({ id, ...d });
    rec.arrival(d.arrivalMs);
    rec.lastCompletionMs = Math.max(rec.lastCompletionMs, d.doneMs);
  });
  rec.rejected = rejected;
  return {
    recorder: rec, issued: done.length + rejected, events: 0, gpuMs: 0, queryTokens: 0, hitTokens: 0, hostHitTokens: 0,
    preemptions: 0, passes: 0, transfers: 0, transferMsSum: 0, scalingActions: 0, peakWorkers: 1,
  };
}

describe('what mean_ttft_ms / mean_tpot_ms cover', () => {
  it('computeMetrics: every completed request, start-up wave included; 1-token requests out of TPOT only; rejected requests in neither', () => {
    const o = outcome(
      [
        // A start-up wave of two slow first tokens…
        { arrivalMs: 0, firstTokenMs: 900, doneMs: 1900, emitted: 11 }, // TTFT 900, TPOT 100
        { arrivalMs: 0, firstTokenMs: 700, doneMs: 1200, emitted: 6 }, // TTFT 700, TPOT 100
        // …then the steady state.
        { arrivalMs: 1200, firstTokenMs: 1300, doneMs: 1500, emitted: 3 }, // TTFT 100, TPOT 100
        { arrivalMs: 1500, firstTokenMs: 1550, doneMs: 1550, emitted: 1 }, // TTFT 50, no TPOT
        { arrivalMs: 1550, firstTokenMs: 1600, doneMs: 1700, emitted: 2 }, // TTFT 50, TPOT 100
      ],
      7,
    );
    const m = computeMetrics(o, null);
    expect(m.completed_requests).toBe(5);
    expect(m.issued_requests).toBe(12);
    expect(m.rejected_requests).toBe(7);
    expect(m.mean_ttft_ms).toBeCloseTo((900 + 700 + 100 + 50 + 50) / 5, 12);
    expect(m.mean_tpot_ms).toBeCloseTo(100, 12);
    // p50 is over the same population (numpy's linear interpolation).
    expect(m.p50_ttft_ms).toBe(100);
    expect(m.mean_e2e_latency_ms).toBeCloseTo((1900 + 1200 + 300 + 50 + 150) / 5, 12);
    expect(m.duration_ms).toBe(1900);
  });

  it('a replayed closed loop: the report equals the plain mean over the recorder\'s completed requests (no window)', () => {
    const cfg = configFromObject(doc());
    const spec = replaySpecFromConfig(cfg);
    const r = resolveReplay(spec);
    const done = simulate(r.deployment, r.plan).recorder.completed;
    const m = runReplay(spec).metrics;
    expect(done.length).toBe(m.completed_requests);
    expect(done.length).toBe(8 * 6);
    const ttft = done.map((x) => x.firstTokenMs - x.arrivalMs);
    const tpot = done.filter((x) => x.emitted >= 2).map((x) => (x.doneMs - x.firstTokenMs) / (x.emitted - 1));
    const avg = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(m.mean_ttft_ms).toBeCloseTo(avg(ttft), 9);
    expect(m.mean_tpot_ms).toBeCloseTo(avg(tpot), 9);
    // A steady-state window (dropping the start-up wave: the first c requests) would read differently.
    expect(Math.abs(avg(ttft.slice(8)) - m.mean_ttft_ms)).toBeGreaterThan(1e-6);
  });

  it('the harness, `spica replay` and a `spica sweep --local` trial read the same means for a measured row\'s config', async () => {
    const row = llama8bH100Row('means');
    const harness = replayRow(row);
    const doc = rowConfig(row, loadSystem(row.sku).memCapacityBytes);
    const dir = mkdtempSync(join(tmpdir(), 'spica-means-'));
    const file = join(dir, 'row.yaml');
    writeFileSync(file, JSON.stringify(doc, null, 1)); // JSON is YAML
    const run = async (args: string[]): Promise<string> => {
      let out = '';
      let err = '';
      const code = await main(args, { stdout: (t) => (out += t), stderr: (t) => (err += t), isTty: false });
      expect(code, err).toBe(0);
      expect(err).not.toMatch(/error|warn/i);
      return out;
    };
    const replay = (JSON.parse(await run(['replay', file, '--json'])) as { metrics: Record<string, number> }).metrics;
    expect(replay.mean_ttft_ms).toBe(harness.ttftMs);
    expect(replay.mean_tpot_ms).toBe(harness.tpotMs);
    const sweep = JSON.parse(await run(['sweep', file, '--local', '--json'])) as { candidates: { metrics?: Record<string, number> }[] };
    const trials = sweep.candidates.filter((c) => c.metrics);
    expect(trials.length).toBeGreaterThan(0);
    for (const c of trials) {
      expect(c.metrics!.mean_ttft_ms).toBe(harness.ttftMs);
      expect(c.metrics!.mean_tpot_ms).toBe(harness.tpotMs);
      expect(c.metrics!.completed_requests).toBe(replay.completed_requests);
    }
  }, 60_000);
});

function doc(): Record<string, unknown> {
  return {
    search_space: {
      model_name: 'meta-llama/Llama-3.1-8B-Instruct', hardware_sku: 'h100_sxm', gpu_budget: 1, deployment_mode: ['agg'], backend: ['vllm'],
      parallel_configs: [{ tp: 1 }], agg_max_num_batched_tokens: [8192], agg_max_num_seqs: [256], agg_enable_prefix_caching: false,
      router_mode: ['round_robin'], planner_scaling_policy: ['disabled'],
    },
    workload: { isl: 2048, osl: 64, concurrency: 8, num_request_ratio: 6 },
    goal: { target: 'throughput' },
  };
}
