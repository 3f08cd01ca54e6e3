// A running sweep's progress on stderr while this process waits for its result.
import type { Client } from '@temporalio/client';
import type { CommandIo } from '../command.js';
import { progressQuery } from '../../../workflows/sweep.js';
import type { SweepProgress } from '../../../workflows/sweep-types.js';
import { liveSweepProgress } from './live-progress.js';
import { ProgressReporter } from '../temporal/sweep-progress.js';

const PROGRESS_POLL_MS = 1000;

/**
 * Polls the `progress` query about once a second until `done` settles, then shows the final state:
 * `finalProgress` of what `done` gave (the progress the workflow's result carries), else — a run
 * recorded before results carried it, a failed run — one more query.
 */
export async function reportProgress<T>(
  client: Client,
  handle: { query: (q: typeof progressQuery) => Promise<SweepProgress> },
  io: CommandIo,
  done: Promise<T>,
  finalProgress: (settled: T) => SweepProgress | null = () => null,
): Promise<void> {
  const reporter = new ProgressReporter(io.stderr, io.isTty);
  let finished = false;
  void done.finally(() => (finished = true)).catch(() => undefined);
  while (!finished) {
    try {
      reporter.update(await liveSweepProgress(client, handle));
    } catch {
      // A query can fail transiently (no workflow task yet, worker restarting): try again next tick.
    }
    // The tick is cleared once `done` wins: a pending 1 s timer kept the process alive after the
    // result was printed (up to a second of the dense example's wall time).
    let tick: NodeJS.Timeout | undefined;
    await Promise.race([new Promise((r) => (tick = setTimeout(r, PROGRESS_POLL_MS))), done.catch(() => undefined)]);
    clearTimeout(tick);
  }
  const carried = await done.then(finalProgress, () => null);
  try {
    // The final state ('done', all trials): the query replays the closed workflow on a worker.
    reporter.update(carried ?? (await handle.query(progressQuery)));
  } catch {
    // the sweep failed or the worker is going away: the error is reported by the caller
  }
  reporter.finish();
}
