// The worker roles of a candidate: one `agg` group, or a `prefill` and a `decode` group. Shared by
// the report (config in words) and the deployment files (one service / launch script per role).
import type { CandidateRow } from '../search/sweepResult.js';
import type { WorkerGroup } from '../parallel/shape.js';
import { gpusPerWorker } from '../parallel/shape.js';

export type WorkerRole = 'agg' | 'prefill' | 'decode';

export interface RoleGroup {
  role: WorkerRole;
  group: WorkerGroup;
  /** GPUs one worker (engine) of this role spans: tp × pp × attention_dp. */
  gpusPerWorker: number;
}

export function workerRolesOf(row: Pick<CandidateRow, 'config'>): RoleGroup[] {
  const pc = row.config.parallel_config;
  const groups: [WorkerRole, WorkerGroup][] = 'prefill' in pc ? [['prefill', pc.prefill], ['decode', pc.decode]] : [['agg', pc]];
  return groups.map(([role, group]) => ({ role, group, gpusPerWorker: gpusPerWorker(group) }));
}
