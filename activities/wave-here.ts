// `waveHere` local activity: may the worker running a branch's workflow task replay the next wave
// itself, as local activities inside that task, instead of one replay activity per candidate on the
// task queue? Each activity costs server round trips (schedule, poll, completion and a workflow task
// per completion), which on short replays cost as much as the replays (the dense example's study
// took 1.1 s on Temporal against 0.6 s in-process). Worth it only where no other worker could take a
// share of the wave: yes on a worker created with `wavesHere` (`spica sweep`'s in-process worker,
// `spica worker`) while no other worker polls the task queue for activities. The answer is recorded
// in the history (the marker), so a replay of the branch takes the same path.
import os from 'node:os';
import type { NativeConnection } from '@temporalio/worker';
import { activityPollers, otherLivePollers, pidAlive } from '../src/cli/temporal/task-queue.js';
import { askAndMaterialize } from './ask-and-materialize.js';

export interface WaveHere {
  here: boolean;
  /** Other workers seen polling the task queue (0 when `here`). */
  other_workers: number;
}

/** The registered default: a worker that was not created to replay waves itself shares them. */
export async function waveHere(): Promise<WaveHere> {
  return { here: false, other_workers: 0 };
}

/** A poll result stays good this long: one DescribeTaskQueue per second, however short the waves. */
const ANSWER_TTL_MS = 1_000;

/** `waveHere` for one worker: it knows its identity, connection and task queue. */
export function waveHereOn(worker: { connection: NativeConnection; namespace: string; taskQueue: string; identity: string }): typeof waveHere {
  let last: { atMs: number; answer: WaveHere } | null = null;
  /** The poll under way: a call meanwhile (the prefetch's, then the wave's own) waits for it. */
  let pending: Promise<WaveHere> | null = null;
  const poll = async (now: number): Promise<WaveHere> => {
    let answer: WaveHere;
    try {
      const others = otherLivePollers(await activityPollers(worker.connection, worker.namespace, worker.taskQueue), worker.identity, now, os.hostname(), pidAlive);
      answer = { here: others.length === 0, other_workers: others.length };
    } catch {
      // The server would not say (e.g. not permitted): share, as every worker can.
      answer = { here: false, other_workers: 0 };
    }
    last = { atMs: now, answer };
    return answer;
  };
  return async () => {
    const now = Date.now();
    if (last && now - last.atMs < ANSWER_TTL_MS) return last.answer;
    pending ??= poll(now).finally(() => (pending = null));
    return pending;
  };
}

/**
 * `askAndMaterialize` that also asks `here` meanwhile, for the worker that answers `waveHere` with it:
 * the wave after an ask starts with `waveHere`, which then answers from that poll (≤ ANSWER_TTL_MS old)
 * instead of waiting for a DescribeTaskQueue round trip of its own (~10 ms on the critical path of a
 * workflow task's first wave). The answer recorded is still the `waveHere` activity's.
 */
export function askAndMaterializeAsking(here: typeof waveHere): typeof askAndMaterialize {
  return (input) => {
    void here().catch(() => undefined);
    return askAndMaterialize(input);
  };
}
