// Replay speed: simulated requests and events per wall-second for (a) 1,000 Mooncake-style requests on
// one vLLM worker and (b) 20,000 requests on 16 workers, disaggregated (6 prefill + 10 decode), KV
// router — each against a baseline measured in the same run (the same workload through round-robin,
// and for (b) also aggregated). The perf model is a fixed analytic one so only simulator cost is timed.
import { performance } from 'node:perf_hooks';
import type { EnginePerf, PassWork } from '../src/hardware/pass.js';
import type { ResolvedDeployment } from '../src/replay/deployment.js';
import type { EngineConfig, EngineRole } from '../src/replay/engine/engine-config.js';
import { DEFAULT_ROUTER, type RouterConfig } from '../src/replay/router/router.js';
import { replayDeployment } from '../src/replay/run.js';
import { mooncakePlan, parseMooncake } from '../src/replay/workload/mooncake.js';
import type { WorkloadPlan } from '../src/replay/workload/request.js';
import { Prng } from '../src/replay/prng.js';

/** H200-ish Llama-8B pass cost: fixed overhead + per-token prefill + per-sequence and per-context decode. */
const perf: EnginePerf = {
  passMs: (w: PassWork) =>
    4 + 0.02 * w.prefillTokens + 4e-7 * w.prefillAttnPairs + 0.02 * w.decodeSeqs + 6e-6 * w.decodeContextSum,
};

/**
 * A Mooncake-style JSONL trace (text, as a file would hold it): conversation sessions share growing
 * prefixes of 512-token blocks, a few system prompts are shared by everybody, Poisson arrivals.
 */
export function mooncakeStyleTrace(n: number, ratePerS: number, seed: number): string {
  const prng = new Prng(seed);
  const lines: string[] = [];
  let t = 0;
  let nextId = 1000;
  const systemPrompts = [[1, 2, 3, 4], [5, 6], [7, 8, 9]];
  const convs: number[][] = [];
  for (let i = 0; i < n; i++) {
    t += (-Math.log(1 - prng.next()) * 1000) / ratePerS;
    let ids: number[];
    if (convs.length > 0 && prng.next() < 0.4) {
      // A follow-up turn: the conversation so far plus new blocks.
      const c = convs[prng.int(0, convs.length - 1)];
      for (let k = prng.int(1, 3); k > 0; k--) c.push(nextId++);
      ids = c.slice();
    } else {
      const sys = systemPrompts[prng.int(0, systemPrompts.length - 1)];
      ids = [...sys];
      for (let k = prng.int(1, 12); k > 0; k--) ids.push(nextId++);
      convs.push(ids.slice());
      if (convs.length > 64) convs.shift();
    }
    if (ids.length > 40) ids.length = 40;
    const input = ids.length * 512 - prng.int(0, 511);
    lines.push(JSON.stringify({ timestamp: Math.round(t), input_length: input, output_length: prng.int(20, 400), hash_ids: ids }));
  }
  return lines.join('\n');
}

function engine(role: EngineRole, prefixCaching = role !== 'decode'): EngineConfig {
  return {
    role,
    backend: 'vllm',
    maxNumBatchedTokens: role === 'decode' ? 8192 : 16384,
    maxNumSeqs: role === 'prefill' ? 64 : 512,
    blockSize: 64,
    kvCapacityTokensPerRank: 500_000,
    enablePrefixCaching: prefixCaching,
    chunkedPrefill: true,
    attentionDp: 1,
    nextn: 0,
    hostTier: null,
  };
}

function agg(replicas: number, router: Partial<RouterConfig>, prefixCaching = true): ResolvedDeployment {
  return {
    mode: 'agg',
    pools: [{ role: 'agg', engine: engine('agg', prefixCaching), perf, gpusPerWorker: 1, replicas, startupTimeMs: 0 }],
    router: { ...DEFAULT_ROUTER, ...router },
    transfer: null,
    scaling: null,
    seed: 1,
  };
}

function disagg(prefill: number, decode: number, router: Partial<RouterConfig>): ResolvedDeployment {
  return {
    mode: 'disagg',
    pools: [
      { role: 'prefill', engine: engine('prefill'), perf, gpusPerWorker: 1, replicas: prefill, startupTimeMs: 0 },
      { role: 'decode', engine: engine('decode'), perf, gpusPerWorker: 1, replicas: decode, startupTimeMs: 0 },
    ],
    router: { ...DEFAULT_ROUTER, ...router },
    transfer: { bandwidthGBps: 50, kvBytesPerToken: 131072 },
    scaling: null,
    seed: 1,
  };
}

function plan(text: string): WorkloadPlan {
  return mooncakePlan(parseMooncake(text, 512), { traceBlockSize: 512, arrivalSpeedupRatio: 1, replayConcurrency: null });
}

interface Timing {
  label: string;
  wallS: number;
  /** CPU seconds of the best run (the machine is shared: CPU time is the steadier figure). */
  cpuS: number;
  requests: number;
  events: number;
  simS: number;
}

function time(label: string, dep: () => ResolvedDeployment, p: () => WorkloadPlan, reps: number): Timing {
  let best = Infinity;
  let bestCpu = Infinity;
  let r = replayDeployment(dep(), p(), { specHash: 'bench', sla: null });
  for (let i = 0; i < reps; i++) {
    const d = dep();
    const pl = p();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    r = replayDeployment(d, pl, { specHash: 'bench', sla: null });
    best = Math.min(best, performance.now() - t0);
    const c = process.cpuUsage(c0);
    bestCpu = Math.min(bestCpu, (c.user + c.system) / 1e3);
  }
  return { label, wallS: best / 1000, cpuS: bestCpu / 1000, requests: r.metrics.completed_requests, events: Number(r.metadata.event_count), simS: r.metrics.duration_ms / 1000 };
}

function show(t: Timing): void {
  console.log(
    `${t.label.padEnd(44)} wall ${(t.wallS * 1000).toFixed(1).padStart(7)} ms (cpu ${(t.cpuS * 1000).toFixed(0)} ms)  ${(t.requests / t.wallS).toFixed(0).padStart(8)} req/s  ${(t.events / t.wallS / 1e6).toFixed(2)} M events/s  (${t.requests} req, ${t.events} events, ${t.simS.toFixed(1)} s simulated)`,
  );
}

export async function run(): Promise<void> {
  const small = mooncakeStyleTrace(1000, 3, 11);
  const a = time('(a) 1k Mooncake, 1 vLLM worker', () => agg(1, { mode: 'kv_router' }), () => plan(small), 5);
  show(a);
  const aBase = time('    baseline: same trace, prefix caching off', () => agg(1, { mode: 'kv_router' }, false), () => plan(small), 5);
  show(aBase);
  console.log(`    target < 0.15 s: ${a.wallS < 0.15 ? 'met' : 'MISSED'} (wall ${a.wallS.toFixed(3)} s, cpu ${a.cpuS.toFixed(3)} s); with / without prefix caching: ${(a.wallS / aBase.wallS).toFixed(2)}×`);

  const big = mooncakeStyleTrace(20_000, 40, 12);
  const b = time('(b) 20k Mooncake, disagg 6P+10D, kv_router', () => disagg(6, 10, { mode: 'kv_router' }), () => plan(big), 2);
  const bRr = time('    baseline: disagg 6P+10D, round_robin', () => disagg(6, 10, { mode: 'round_robin' }), () => plan(big), 2);
  const bAgg = time('    baseline: agg 16 workers, round_robin', () => agg(16, { mode: 'round_robin' }), () => plan(big), 2);
  show(b);
  show(bRr);
  show(bAgg);
  console.log(`    target < 3 s: ${b.wallS < 3 ? 'met' : 'MISSED'} (wall ${b.wallS.toFixed(3)} s, cpu ${b.cpuS.toFixed(3)} s)`);
  console.log(`    ratio kv_router / round_robin wall time: ${(b.wallS / bRr.wallS).toFixed(2)}×; disagg kv / agg rr: ${(b.wallS / bAgg.wallS).toFixed(2)}×`);
}
