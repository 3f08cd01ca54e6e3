// A deployment plan for one feasible candidate, rendered from the resolved deployment it was replayed
// with (row.deployment): the services to run (frontend + router, one worker service per role, a
// planner when the replay ran one) with replicas, GPUs per worker, full command lines and
// environment, plus the simulated settings Dynamo has no flag for. Pure; the manifest, the launch
// scripts and the benchmark script are renderings of it.
import { InputError } from '../../errors.js';
import { resolveModel } from '../../model/catalog.js';
import type { CandidateRow, SweepResult } from '../../search/sweepResult.js';
import { deploymentRoles, recordedDeployment, type WorkerRole } from '../roles.js';
import { WORKER_MODULE, workerLaunch, type DeployBackend } from './engineFlags.js';
import { FRONTEND_MODULE, frontendArgs } from './frontendArgs.js';
import { PLANNER_MODULE, plannerArgs } from './plannerArgs.js';
import type { UnflaggedSetting } from './unflagged.js';

export interface ServicePlan {
  /** DynamoGraphDeployment service key, e.g. `VllmPrefillWorker`. */
  name: string;
  componentType: 'frontend' | 'worker' | 'planner';
  subComponentType?: 'prefill' | 'decode';
  role?: WorkerRole;
  replicas: number;
  /** GPUs per replica (0 for frontend/planner). */
  gpus: number;
  module: string;
  args: string[];
  env: Record<string, string>;
}

export interface DeploymentPlan {
  name: string;
  candidateId: string;
  backend: DeployBackend;
  mode: 'agg' | 'disagg';
  image: string;
  services: ServicePlan[];
  annotations: Record<string, string>;
  /** Simulated settings with no Dynamo flag (comments in every file). */
  unflagged: UnflaggedSetting[];
}

/** Dynamo runtime images per backend; override with `--image`. The tag is an assumption. */
export const DEFAULT_IMAGE_TAG = '1.2.1';
export const DEFAULT_IMAGES: Record<DeployBackend, string> = {
  vllm: `nvcr.io/nvidia/ai-dynamo/vllm-runtime:${DEFAULT_IMAGE_TAG}`,
  sglang: `nvcr.io/nvidia/ai-dynamo/sglang-runtime:${DEFAULT_IMAGE_TAG}`,
  trtllm: `nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:${DEFAULT_IMAGE_TAG}`,
};

const SERVICE_PREFIX: Record<DeployBackend, string> = { vllm: 'Vllm', sglang: 'Sglang', trtllm: 'Trtllm' };
const ROLE_SUFFIX: Record<WorkerRole, string> = { agg: 'Worker', prefill: 'PrefillWorker', decode: 'DecodeWorker' };

/** A DNS-1123 label (Kubernetes object name). */
export function dnsLabel(value: string): string {
  const s = value.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 63).replace(/-+$/, '');
  return s || 'spica';
}

export interface PlanOptions {
  image?: string;
  name?: string;
}

export function deploymentPlan(result: SweepResult, row: CandidateRow, opts: PlanOptions = {}): DeploymentPlan {
  if (row.status !== 'feasible') throw new InputError(`${row.id} is ${row.status}${row.reason ? ` (${row.reason})` : ''}: only feasible candidates can be deployed`);
  const d = recordedDeployment(row);
  const bd = d.backend_deployment;
  const backend = bd.backend;
  const model = resolveModel(bd.model_name);
  const checkpoint = { quantization: model.weightQuant, kv_cache_dtype: model.kvCacheDtype };
  const roles = deploymentRoles(d);
  const unflagged: UnflaggedSetting[] = [];
  const services: ServicePlan[] = [
    { name: 'Frontend', componentType: 'frontend', replicas: 1, gpus: 0, module: FRONTEND_MODULE, args: frontendArgs(d.router), env: {} },
  ];
  for (const r of roles) {
    const launch = workerLaunch({ backend, role: r.role, group: r.group, engine: r.engine, deployment: d, checkpoint });
    for (const n of launch.notes) unflagged.push({ ...n, setting: `${r.role}.${n.setting}` });
    services.push({
      name: `${SERVICE_PREFIX[backend]}${ROLE_SUFFIX[r.role]}`,
      componentType: 'worker',
      ...(r.role === 'agg' ? {} : { subComponentType: r.role }),
      role: r.role,
      replicas: r.group.replicas,
      gpus: r.gpusPerWorker,
      module: WORKER_MODULE[backend],
      args: launch.args,
      env: launch.env,
    });
  }
  unflagged.push({ setting: 'kv_bytes_per_token', value: d.resolved.kv_bytes_per_token, why: 'the engine derives it from the model and the KV dtype' });
  if (bd.deployment_mode === 'disagg')
    unflagged.push({
      setting: 'pd_transfer_bandwidth_gbps',
      value: bd.pd_transfer_bandwidth_gbps ?? 'system link',
      why: 'NIXL moves KV over the fabric the cluster has; the replay used the pinned value, else the per-GPU link × sending GPUs',
    });
  if (d.planner.active) services.push({ name: 'Planner', componentType: 'planner', replicas: 1, gpus: 0, module: PLANNER_MODULE, args: plannerArgs(d, roles), env: {} });
  else if (d.planner.inactive_reason)
    unflagged.push({ setting: 'planner.scaling_policy', value: d.planner.scaling_policy, why: `the replay ran static replicas (${d.planner.inactive_reason}), so no Planner is deployed` });
  return {
    name: dnsLabel(opts.name ?? `spica-${row.id}`),
    candidateId: row.id,
    backend,
    mode: bd.deployment_mode,
    image: opts.image ?? DEFAULT_IMAGES[backend],
    services,
    annotations: {
      'spica/candidate': row.id,
      'spica/model': bd.model_name,
      'spica/hardware-sku': bd.hardware_sku,
      'spica/used-gpus': String(row.used_gpus),
      'spica/config-hash': result.config_hash,
      'spica/simulator-version': result.simulator_version,
      ...(result.sweep_id ? { 'spica/sweep-id': result.sweep_id } : {}),
    },
    unflagged,
  };
}
