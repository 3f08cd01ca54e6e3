// `reportSweep` activity: reads each branch's trials back from the store (one chunk per round; no
// payload ever holds them all), re-hydrates the compact trials (candidate from the materializer,
// full metrics from the persistent cache — replayed again only if the cache lacks them) and
// assembles the SweepResult exactly as runSweepLocal does; a big result goes to the store too.
import { Context } from '@temporalio/activity';
import type { SmartSearchConfig } from '../src/config/schema.js';
import { SIMULATOR_VERSION } from '../src/replay/report.js';
import { assembleSweepResult } from '../src/search/assembleResult.js';
import type { BranchStudyPlan } from '../src/search/study/plan.js';
import type { TrialRecord } from '../src/search/study/trialRecord.js';
import type { BranchContext, BranchStudyResult, SweepOutcome } from '../workflows/sweep-types.js';
import { branchMaterializer } from './materialize.js';
import { evaluateWithCache, specHashFor } from './replay-wave.js';
import { resultCache } from './result-cache.js';
import { inlineOrStore } from './result-store.js';
import { readTrialChunks } from './trial-chunks.js';
import { testPause } from './test-pause.js';

export interface ReportInput {
  sweep_id: string;
  config: SmartSearchConfig;
  config_hash: string;
  load_predictor: Record<string, unknown> | null;
  warnings: string[];
  traceSha256: string | null;
  branches: { plan: BranchStudyPlan; result: BranchStudyResult }[];
}

/** Full trial records of one branch (candidate + lossless metrics) from its compact form. */
export async function hydrateTrials(context: BranchContext, trials: TrialRecord[], heartbeat?: () => void): Promise<TrialRecord[]> {
  const materializer = branchMaterializer(context);
  const cache = resultCache();
  const out: TrialRecord[] = [];
  const missing: { index: number; m: ReturnType<typeof materializer.materialize> }[] = [];
  const wanted: { index: number; hash: string | null; m: ReturnType<typeof materializer.materialize> }[] = [];
  for (const t of trials) {
    const m = materializer.materialize(t.point);
    const { observed: _observed, ...rest } = t; // the projection below says it in full
    const full: TrialRecord = { ...rest, candidate: m.candidate, projection: m.projection };
    if (t.metrics && m.candidate) {
      const key = specHashFor(context, m, t.key);
      wanted.push({ index: out.length, hash: 'hash' in key ? key.hash : null, m });
    }
    out.push(full);
  }
  const cached = await cache.getMany(wanted.flatMap((w) => (w.hash ? [w.hash] : [])));
  for (const w of wanted) {
    const hit = w.hash ? cached.get(w.hash) : undefined;
    if (hit?.ok) out[w.index].metrics = hit.metrics;
    else missing.push({ index: w.index, m: w.m });
  }
  if (missing.length > 0) {
    // Another machine replayed these: replay again (deterministic) rather than report partial metrics.
    const wave = await evaluateWithCache(context, missing.map((x) => x.m), undefined, heartbeat);
    wave.outcomes.forEach((o, i) => {
      if (o.ok) out[missing[i].index].metrics = o.metrics;
    });
  }
  return out;
}

export async function reportSweep(input: ReportInput): Promise<SweepOutcome> {
  let heartbeat: (() => void) | undefined;
  try {
    const ctx = Context.current();
    // A local activity (a small sweep's report, workflows/sweep.ts) has no heartbeat: its workflow
    // task is what proves the worker alive.
    heartbeat = ctx.info.isLocal ? undefined : () => ctx.heartbeat();
  } catch {
    heartbeat = undefined; // called outside an activity (tests, local tools)
  }
  // Re-running replays another machine did can take a while: keep proving liveness meanwhile.
  const beat = heartbeat ? setInterval(heartbeat, 5_000) : undefined;
  try {
    await testPause('report');
    return await assembleReport(input, heartbeat);
  } finally {
    clearInterval(beat);
  }
}

async function assembleReport(input: ReportInput, heartbeat: (() => void) | undefined): Promise<SweepOutcome> {
  const branches = [];
  let persistentHits = 0;
  for (const { plan, result } of input.branches) {
    const context: BranchContext = { config: input.config, mode: plan.deployment_mode, traceSha256: input.traceSha256, config_hash: input.config_hash };
    const trials: TrialRecord[] = [];
    // Chunk by chunk, so heartbeats get through between them.
    const pieces = result.trial_chunks ? await readTrialChunks(result.trial_chunks) : [];
    for (const piece of [...pieces, result.state.trials]) {
      trials.push(...(await hydrateTrials(context, piece, heartbeat)));
      heartbeat?.();
    }
    branches.push({ plan, state: { ...result.state, trials } });
    persistentHits += result.persistent_cache_hits;
  }
  const result = assembleSweepResult({
    config: input.config,
    config_hash: input.config_hash,
    sweep_id: input.sweep_id,
    simulator_version: SIMULATOR_VERSION,
    branches,
    load_predictor: input.load_predictor,
    warnings: input.warnings,
    persistent_cache_hits: persistentHits,
  });
  return inlineOrStore(result);
}
