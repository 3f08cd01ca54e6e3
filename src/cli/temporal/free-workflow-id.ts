// A new run's workflow id: the first of `idFor(1)`, `idFor(2)`, … the server has not used. Runs take
// these numbers in order (that is what this picks), so the used ones are 1..N, or k..N once the oldest
// passed the namespace's retention; after the first refused start the next free number is found by
// describing ids — doubling, then bisecting — in O(log N) lookups instead of one refused start per
// earlier run (the 30th run of a config made 29 start requests before its own, ~0.3 s).
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';

/** The highest run number a base id takes (`<base>-9999`). */
export const MAX_RUNS = 9_999;

/** The first number after `used` (a used one) whose id is free, if the used numbers are contiguous. */
export async function nextFreeRun(used: number, isUsed: (n: number) => Promise<boolean>): Promise<number> {
  let lo = used;
  let step = 1;
  let hi = lo + step;
  while (await isUsed(hi)) {
    lo = hi;
    step *= 2;
    hi = lo + step;
  }
  // lo is used, hi is free: the first free one is in (lo, hi].
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (await isUsed(mid)) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Whether the server knows a run (running or closed) under `workflowId`. */
export async function workflowIdUsed(client: Client, workflowId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/**
 * Runs `start` under `idFor(n)` for the first free n ≤ maxRuns (a start refused because the id was
 * used meanwhile moves on to the next free one); null when every id up to maxRuns is used.
 */
export async function startUnderFreeId<H>(
  client: Client,
  idFor: (n: number) => string,
  start: (workflowId: string) => Promise<H>,
  maxRuns = MAX_RUNS,
): Promise<H | null> {
  let n = 1;
  while (n <= maxRuns) {
    try {
      return await start(idFor(n));
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    n = await nextFreeRun(n, (k) => (k > maxRuns ? Promise.resolve(false) : workflowIdUsed(client, idFor(k))));
  }
  return null;
}
