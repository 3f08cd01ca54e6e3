// RunnerCapabilities preflight (sweeper architecture "Replay and Failure Semantics"): before the first
// trial, the runner must accept the ReplaySpec version, every (backend, topology) pair a branch can
// produce, and every runtime hook a provider may ask for. Unsupported combinations fail fast.
import { InputError } from '../../errors.js';
import type { HookCapability } from './provider.js';

export interface RunnerCapabilities {
  replay_spec_api_version: number;
  /** (backend, topology) pairs; "*" is a wildcard on either side. */
  supported_backend_topologies: [string, string][];
  supported_hooks: HookCapability[];
}

export interface RunnerRequirements {
  replay_spec_api_version: number;
  backend_topologies: [string, string][];
  hooks: HookCapability[];
}

export function supportsTopology(caps: RunnerCapabilities, backend: string, topology: string): boolean {
  return caps.supported_backend_topologies.some(([b, t]) => (b === '*' || b === backend) && (t === '*' || t === topology));
}

function supportsHook(caps: RunnerCapabilities, h: HookCapability): boolean {
  return caps.supported_hooks.some((c) => c.provider === h.provider && c.kind === h.kind && c.api_version === h.api_version);
}

/** Throws InputError listing everything the runner cannot do. */
export function requireCompatible(caps: RunnerCapabilities, req: RunnerRequirements): void {
  const problems: string[] = [];
  if (caps.replay_spec_api_version !== req.replay_spec_api_version)
    problems.push(`ReplaySpec api_version ${req.replay_spec_api_version} (runner speaks ${caps.replay_spec_api_version})`);
  for (const [b, t] of req.backend_topologies)
    if (!supportsTopology(caps, b, t)) problems.push(`backend '${b}' in ${t} topology`);
  for (const h of req.hooks)
    if (!supportsHook(caps, h)) problems.push(`runtime hook ${h.provider}:${h.kind}@${h.api_version}`);
  if (problems.length > 0) throw new InputError(`the replay runner does not support: ${problems.join('; ')}`);
}
