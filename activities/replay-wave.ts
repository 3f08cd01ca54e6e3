// `replayWave` activity: a chunk of a branch wave on one worker — quick replays grouped so their
// orchestration does not dominate (workflows/replay-units.ts), a whole wave in histories recorded
// before `replayCandidate`, or, as a local activity, a wave the branch's own worker replays itself
// while no other worker polls (activities/wave-here.ts). Answers what the
// persistent cache already holds, runs the rest on the worker-thread pool (bounded by
// max_eval_seconds each), heartbeats while waiting, stores cacheable outcomes. Outcomes come back in
// input order; a replay failure is an outcome, never an activity failure.
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { specHash } from '../src/replay/spec-hash.js';
import type { MaterializedCandidate } from '../src/search/study/materialize.js';
import type { EvalOutcome } from '../src/search/trial.js';
import type { ActivityContext, BranchContext, WaveOutcome } from '../workflows/sweep-types.js';
import { resolveContext } from './context.js';
import { replaySpecFor } from './evaluate.js';
import { replayPool } from './replay-pool.js';
import { resultCache } from './result-cache.js';
import { testPause } from './test-pause.js';

const HEARTBEAT_MS = 5_000;

type SpecHash = { hash: string } | { error: string };

// Spec hashes by (config hash, trace, candidate key), per process: a wave hashes each candidate's
// ReplaySpec to ask the persistent cache, and the report of a sweep this worker ran hashes every trial
// again to re-hydrate it; building the spec is most of that (~0.5–1 ms a candidate on 2 cores). The
// key and the config decide the spec (the materializer derives everything else from them).
const SPEC_HASHES_KEPT = 4096;
const specHashes = new Map<string, SpecHash>();

/**
 * Spec hash of a candidate, or the build error that prevents a spec. `key`: the candidate's compact
 * key (a materializeCandidates key, or the trial's), remembered only with a context that names its
 * config by hash.
 */
export function specHashFor(context: BranchContext, m: MaterializedCandidate, key: string = m.key): SpecHash {
  const memoKey = context.config_hash && key ? `${context.config_hash}\n${context.traceSha256 ?? ''}\n${key}` : null;
  const known = memoKey === null ? undefined : specHashes.get(memoKey);
  if (known) return known;
  let out: SpecHash;
  try {
    out = { hash: specHash(replaySpecFor({ config: context.config, traceSha256: context.traceSha256 }, m)) };
  } catch (e) {
    out = { error: (e as Error).message };
  }
  if (memoKey !== null) {
    specHashes.set(memoKey, out);
    if (specHashes.size > SPEC_HASHES_KEPT) specHashes.delete(specHashes.keys().next().value!);
  }
  return out;
}

/** Runs candidates through cache + pool; `onProgress` sees (done, total). Shared with `reportSweep`. */
export async function evaluateWithCache(
  context: BranchContext,
  candidates: MaterializedCandidate[],
  signal?: AbortSignal,
  onProgress?: (done: number, total: number) => void,
): Promise<WaveOutcome> {
  const cache = resultCache();
  // Every pooled replay listens for the abort: a wave of many candidates is not a listener leak.
  if (signal) setMaxListeners(0, signal);
  const outcomes: EvalOutcome[] = new Array(candidates.length);
  let hits = 0;
  let done = 0;
  const runs: Promise<void>[] = [];
  const keys = candidates.map((m) => (m.rejection ? null : specHashFor(context, m)));
  const cachedAll = await cache.getMany(keys.flatMap((k) => (k && 'hash' in k ? [k.hash] : [])));
  candidates.forEach((m, i) => {
    if (m.rejection) {
      outcomes[i] = { ok: false, ...m.rejection };
      return;
    }
    const key = keys[i]!;
    if ('error' in key) {
      outcomes[i] = { ok: false, reason_category: 'build_error', reason: key.error };
      return;
    }
    const cached = cachedAll.get(key.hash);
    if (cached) {
      outcomes[i] = cached;
      hits += 1;
      return;
    }
    runs.push(
      replayPool()
        .run({ ctx: { config: context.config, traceSha256: context.traceSha256 }, candidate: m, timeoutSeconds: context.config.sweep.max_eval_seconds }, signal)
        .then(async (o) => {
          outcomes[i] = o;
          // A replay done is not thrown away because the cache cannot keep it now (the store down
          // longer than a call waits): the wave's outcome stands; a report missing it replays it again.
          if (!signal?.aborted) await cache.put(key.hash, o).catch(() => undefined);
          done += 1;
          onProgress?.(done, runs.length);
        }),
    );
  });
  onProgress?.(0, runs.length);
  await Promise.all(runs);
  return { outcomes, cache_hits: hits };
}

export async function replayWave(input: { context: ActivityContext; candidates: MaterializedCandidate[] }): Promise<WaveOutcome> {
  const ctx = Context.current();
  // As a local activity (a wave replayed by the branch's own worker, workflows/branch-study.ts) it has
  // no heartbeat: the workflow task it runs in is what a lost worker times out.
  const beats = !ctx.info.isLocal;
  let progress = { done: 0, total: 0 };
  const beat = beats ? setInterval(() => ctx.heartbeat(progress), HEARTBEAT_MS) : undefined;
  try {
    await testPause('replay', ctx.cancellationSignal);
    const t0 = performance.now();
    const wave = await evaluateWithCache(await resolveContext(input.context), input.candidates, ctx.cancellationSignal, (done, total) => {
      progress = { done, total };
      if (beats) ctx.heartbeat(progress);
    });
    if (ctx.cancellationSignal.aborted) throw new CancelledFailure('replay wave cancelled');
    return { ...wave, replay_ms: Math.round(performance.now() - t0) };
  } finally {
    clearInterval(beat);
  }
}
