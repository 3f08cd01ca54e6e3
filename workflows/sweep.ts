// The `sweep` workflow: plan (activity) → one `branchStudy` child per deployment_mode branch →
// merge. Deterministic: config parsing and any I/O live in activities.
import {
  ApplicationFailure,
  defineQuery,
  executeChild,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type * as activities from '../activities/index.js';
import { branchStudy } from './branch-study.js';
import { SPICA_GOAL, SPICA_HARDWARE, SPICA_MODEL } from './search-attributes.js';
import type { SweepInput, SweepPlan, SweepProgress, SweepRunResult } from './sweep-types.js';

export const progressQuery = defineQuery<SweepProgress>('progress');

const { plan } = proxyActivities<typeof activities>({
  startToCloseTimeout: '2 minutes',
  // Config errors are thrown non-retryable by the activity; this bounds anything unexpected.
  retry: { maximumAttempts: 3, initialInterval: '1 second' },
});

/** Deterministic child id so a restarted parent finds its children again. */
export function branchWorkflowId(parentId: string, mode: string): string {
  return `${parentId}/branch-${mode}`;
}

function upsertLabels(p: SweepPlan): void {
  const pairs = [
    { key: SPICA_MODEL, value: p.labels.model },
    { key: SPICA_HARDWARE, value: p.labels.hardware },
    { key: SPICA_GOAL, value: p.labels.goal },
  ].filter((pair) => p.searchAttributes.includes(pair.key.name));
  if (pairs.length > 0) upsertSearchAttributes(pairs);
}

export async function sweep(input: SweepInput): Promise<SweepRunResult> {
  const { workflowId } = workflowInfo();
  const progress: SweepProgress = { phase: 'planning', branchesPlanned: 0, branchesDone: 0, branches: [] };
  setHandler(progressQuery, () => progress);

  let planned: SweepPlan;
  try {
    planned = await plan(input);
  } catch (err) {
    progress.phase = 'failed';
    throw err;
  }
  upsertLabels(planned);
  if (planned.branches.length === 0) {
    progress.phase = 'failed';
    throw ApplicationFailure.nonRetryable('the config leaves no viable deployment_mode branch', 'NoViableBranch');
  }

  progress.phase = 'studying';
  progress.branchesPlanned = planned.branches.length;
  progress.branches = planned.branches.map((b) => ({
    deployment_mode: b.deployment_mode,
    status: 'pending',
    workflowId: branchWorkflowId(workflowId, b.deployment_mode),
  }));

  const results = await Promise.all(
    planned.branches.map(async (branch, i) => {
      const entry = progress.branches[i];
      entry.status = 'running';
      try {
        const result = await executeChild(branchStudy, {
          workflowId: entry.workflowId,
          args: [{ sweepId: workflowId, config: planned.config, branch }],
        });
        entry.status = 'done';
        progress.branchesDone += 1;
        return result;
      } catch (err) {
        entry.status = 'failed';
        throw err;
      }
    }),
  );

  progress.phase = 'done';
  return { workflowId, labels: planned.labels, seed: planned.seed, branches: results, warnings: planned.warnings };
}
