// A running sweep's progress on stderr while this process waits for its result.
import type { Client } from '@temporalio/client';
import type { CommandIo } from '../command.js';
import { progressQuery } from '../../../workflows/sweep.js';
import { splitOutcome, type SweepOutcome, type SweepProgress } from '../../../workflows/sweep-types.js';
import { liveSweepProgress } from './live-progress.js';
import { ProgressReporter } from '../temporal/sweep-progress.js';

const PROGRESS_POLL_MS = 1000;

/** How a followed run ended for this process: its return value, or a Ctrl-C (the run goes on). */
export type FollowOutcome = { result: SweepOutcome } | { interrupted: true };

/**
 * Polls the `progress` query about once a second until `done` settles, then shows the final state: the
 * progress the workflow's result carries, else (a run recorded before results carried it, a failed
 * run) one more query; after a Ctrl-C, nothing more. A query in flight when `done` settles is not
 * waited for: with no worker to answer it would hold the process until the query's deadline.
 */
export async function reportProgress(
  client: Client,
  handle: { query: (q: typeof progressQuery) => Promise<SweepProgress> },
  io: CommandIo,
  done: Promise<FollowOutcome>,
): Promise<void> {
  const reporter = new ProgressReporter(io.stderr, io.isTty);
  let finished = false;
  const settled = done.then(
    () => (finished = true),
    () => (finished = true),
  );
  while (!finished) {
    try {
      const progress = await Promise.race([liveSweepProgress(client, handle), settled.then(() => null)]);
      if (progress) reporter.update(progress);
    } catch {
      // A query can fail transiently (no workflow task yet, worker restarting): try again next tick.
    }
    if (finished) break;
    // The tick is cleared once `done` wins: a pending 1 s timer kept the process alive after the
    // result was printed (up to a second of the dense example's wall time).
    let tick: NodeJS.Timeout | undefined;
    await Promise.race([new Promise((r) => (tick = setTimeout(r, PROGRESS_POLL_MS))), settled]);
    clearTimeout(tick);
  }
  const outcome = await done.catch(() => null);
  if (outcome && 'interrupted' in outcome) return reporter.finish();
  try {
    // The final state ('done', all trials): the query replays the closed workflow on a worker.
    reporter.update((outcome && splitOutcome(outcome.result).progress) ?? (await handle.query(progressQuery)));
  } catch {
    // the sweep failed or the worker is going away: the error is reported by the caller
  }
  reporter.finish();
}
