// The worker roles of a candidate: one `agg` group, or a `prefill` and a `decode` group. Shared by
// the report (config in words) and the deployment files (one service / launch script per role).
import type { CandidateRow } from '../search/sweepResult.js';
import type { DeploymentRecord } from '../search/deploymentRecord.js';
import type { EngineArgs } from '../replay/spec.js';
import type { WorkerGroup } from '../parallel/shape.js';
import { gpusPerWorker } from '../parallel/shape.js';
import { InputError } from '../errors.js';

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

export interface DeployedRole extends RoleGroup {
  engine: EngineArgs;
}

/** The roles as the replay ran them: worker counts from num_*workers, engine args per role. */
export function deploymentRoles(d: DeploymentRecord): DeployedRole[] {
  const bd = d.backend_deployment;
  const pc = bd.parallel_config;
  const roles: [WorkerRole, WorkerGroup, number | undefined, EngineArgs | undefined][] =
    'prefill' in pc
      ? [
          ['prefill', pc.prefill, bd.num_prefill_workers, bd.prefill_engine_args],
          ['decode', pc.decode, bd.num_decode_workers, bd.decode_engine_args],
        ]
      : [['agg', pc, bd.num_workers, bd.agg_engine_args]];
  return roles.map(([role, g, n, engine]) => {
    if (!engine) throw new InputError(`the recorded deployment has no ${role}_engine_args`);
    const group = { ...g, replicas: n ?? g.replicas };
    return { role, group, gpusPerWorker: gpusPerWorker(group), engine };
  });
}

/** The row's recorded deployment, or an error saying how to get one. */
export function recordedDeployment(row: Pick<CandidateRow, 'id' | 'status' | 'deployment'>): DeploymentRecord {
  if (!row.deployment)
    throw new InputError(
      row.status === 'feasible'
        ? `${row.id} carries no resolved deployment (the result was written by an older spica): re-run the sweep, or \`spica result <sweep-id> --out DIR\`, to record it`
        : `${row.id} is ${row.status}: only feasible candidates carry a deployment`,
    );
  return row.deployment;
}
