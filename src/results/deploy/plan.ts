// A deployment plan for one feasible candidate: the services to run (frontend + router, one worker
// service per role, a planner when a scaling policy was chosen) with their replicas, GPUs per
// worker and full command lines. Pure; the manifest and the launch scripts are renderings of it.
import { InputError } from '../../errors.js';
import type { CandidateRow, SweepResult } from '../../search/sweepResult.js';
import { roleEngineSettings } from '../engineSettings.js';
import { plannerSettingsOf } from '../plannerSettings.js';
import { workerRolesOf, type WorkerRole } from '../roles.js';
import { routerSettingsOf } from '../routerSettings.js';
import { WORKER_MODULE, workerArgs, type DeployBackend } from './engineFlags.js';
import { FRONTEND_MODULE, frontendArgs } from './frontendArgs.js';
import { PLANNER_MODULE, plannerArgs } from './plannerArgs.js';

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
}

export interface DeploymentPlan {
  name: string;
  candidateId: string;
  backend: DeployBackend;
  mode: 'agg' | 'disagg';
  image: string;
  services: ServicePlan[];
  annotations: Record<string, string>;
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
  const backend = row.config.backend;
  const model = result.question.model_name;
  const services: ServicePlan[] = [
    { name: 'Frontend', componentType: 'frontend', replicas: 1, gpus: 0, module: FRONTEND_MODULE, args: frontendArgs(routerSettingsOf(row)) },
  ];
  for (const { role, group, gpusPerWorker } of workerRolesOf(row)) {
    services.push({
      name: `${SERVICE_PREFIX[backend]}${ROLE_SUFFIX[role]}`,
      componentType: 'worker',
      ...(role === 'agg' ? {} : { subComponentType: role }),
      role,
      replicas: group.replicas,
      gpus: gpusPerWorker,
      module: WORKER_MODULE[backend],
      args: workerArgs({ backend, role, model, group, engine: roleEngineSettings(row, role) }),
    });
  }
  const planner = plannerSettingsOf(row, result.question);
  if (planner) services.push({ name: 'Planner', componentType: 'planner', replicas: 1, gpus: 0, module: PLANNER_MODULE, args: plannerArgs(planner) });
  return {
    name: dnsLabel(opts.name ?? `spica-${row.id}`),
    candidateId: row.id,
    backend,
    mode: row.config.deployment_mode,
    image: opts.image ?? DEFAULT_IMAGES[backend],
    services,
    annotations: {
      'spica/candidate': row.id,
      'spica/model': model,
      'spica/hardware-sku': result.question.hardware_sku,
      'spica/used-gpus': String(row.used_gpus),
      'spica/config-hash': result.config_hash,
      'spica/simulator-version': result.simulator_version,
      ...(result.sweep_id ? { 'spica/sweep-id': result.sweep_id } : {}),
    },
  };
}
