// Open-loop traces for planner tests: piecewise-constant request rates, evenly spaced arrivals,
// unique prompts (no prefix reuse), so the load each phase puts on the cluster is exact.
import { mooncakePlan, type MooncakeRow } from '../../../src/replay/workload/mooncake.js';
import type { WorkloadPlan } from '../../../src/replay/workload/request.js';

export interface Phase {
  seconds: number;
  rps: number;
}

export function phaseRows(phases: readonly Phase[], isl = 1024, osl = 30): MooncakeRow[] {
  const rows: MooncakeRow[] = [];
  let t = 0;
  let id = 0;
  const blocks = Math.ceil(isl / 512);
  for (const { seconds, rps } of phases) {
    const n = Math.round(seconds * rps);
    for (let i = 0; i < n; i++) {
      id++;
      const hashIds = Array.from({ length: blocks }, (_, b) => id * blocks + b);
      rows.push({ line: id, timestampMs: Math.round(t + (i * 1000) / rps), inputLength: isl, outputLength: osl, hashIds, sessionId: null, delayMs: null });
    }
    t += seconds * 1000;
  }
  return rows;
}

export function phasePlan(phases: readonly Phase[], isl = 1024, osl = 30): WorkloadPlan {
  return mooncakePlan(phaseRows(phases, isl, osl), { traceBlockSize: 512, arrivalSpeedupRatio: 1, replayConcurrency: null });
}

/** The same rows as Mooncake JSONL text (for specs that reference a trace file). */
export function phaseTraceText(phases: readonly Phase[], isl = 1024, osl = 30): string {
  return phaseRows(phases, isl, osl)
    .map((r) => JSON.stringify({ timestamp: r.timestampMs, input_length: r.inputLength, output_length: r.outputLength, hash_ids: r.hashIds }))
    .join('\n') + '\n';
}
