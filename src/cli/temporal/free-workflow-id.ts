// A new run's workflow id: the first of `idFor(1)`, `idFor(2)`, … the server has not used. Runs take
// these numbers in order (that is what this picks), so the used ones are 1..N, or k..N once the oldest
// passed the namespace's retention; the first free number is found by describing ids — doubling, then
// bisecting — in O(log N) lookups instead of one refused start per earlier run (the 30th run of a
// config made 29 start requests before its own, ~0.3 s). `spica sweep` looks it up while its worker is
// being created (`firstFreeRun`), so a rerun's start is not delayed by the lookups (~40 ms at N ≈ 10 on a
// 2-core box when they followed a refused start); a start refused all the same (another process took
// the number meanwhile) looks further.
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

/** `isUsed` for `nextFreeRun`: a describe of `idFor(n)`; numbers past maxRuns count as free. */
function usedOn(client: Client, idFor: (n: number) => string, maxRuns: number): (n: number) => Promise<boolean> {
  return (n) => (n > maxRuns ? Promise.resolve(false) : workflowIdUsed(client, idFor(n)));
}

/** The first n whose id `idFor(n)` the server has not used; maxRuns + 1 when all up to maxRuns are. */
export async function firstFreeRun(client: Client, idFor: (n: number) => string, maxRuns = MAX_RUNS): Promise<number> {
  const isUsed = usedOn(client, idFor, maxRuns);
  return (await isUsed(1)) ? nextFreeRun(1, isUsed) : 1;
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
 * Runs `start` under `idFor(n)` for the first free n ≤ maxRuns, trying `from` first (1, or what
 * `firstFreeRun` found); a start refused because the id is used moves on to the next free one. Null
 * when every id up to maxRuns is used.
 */
export async function startUnderFreeId<H>(
  client: Client,
  idFor: (n: number) => string,
  start: (workflowId: string) => Promise<H>,
  maxRuns = MAX_RUNS,
  from: number | Promise<number> = 1,
): Promise<H | null> {
  const isUsed = usedOn(client, idFor, maxRuns);
  let n = await from;
  while (n <= maxRuns) {
    try {
      return await start(idFor(n));
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    n = await nextFreeRun(n, isUsed);
  }
  return null;
}
