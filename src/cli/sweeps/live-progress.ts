// A sweep's progress as of now: the parent's `progress` query (phase, branches, stop) with each
// running branch's figures read from the branch itself. The parent hears from a branch once per
// round only for its first 32 rounds, then in rounds that are powers of two (so its history stays
// bounded; workflows/branch-study.ts), so its own per-branch figures can lag behind a long branch.
// Before that round the parent's figures are the branch's as of its last workflow task, which is all a
// branch query could tell too (a query waits for the task to end): the branch is not asked then. Asked
// anyway, a branch replaying its waves in one long task (activities/wave-here.ts) answered only when it
// had finished and left the worker's cache, and then after replaying its whole history on this worker,
// at the sweep's end (~50 ms of the dense example's main thread in about half of the runs).
import type { Client } from '@temporalio/client';
import { EVERY_ROUND_SIGNALS } from '../../../workflows/branch-study.js';
import { branchProgressQuery, progressQuery } from '../../../workflows/messages.js';
import type { SweepProgress } from '../../../workflows/sweep-types.js';

export async function liveSweepProgress(client: Client, handle: { query: (q: typeof progressQuery) => Promise<SweepProgress> }): Promise<SweepProgress> {
  const p = await handle.query(progressQuery);
  const branches = await Promise.all(
    p.branches.map(async (b) => {
      if (b.status !== 'running' || b.round < EVERY_ROUND_SIGNALS) return b;
      try {
        const live = await client.workflow.getHandle(b.workflowId).query(branchProgressQuery);
        // A branch between runs (continue-as-new) or one that just finished: keep what the parent says.
        return live.status === 'running' && live.trials_recorded >= b.trials_recorded ? live : b;
      } catch {
        return b;
      }
    }),
  );
  return { ...p, branches };
}
