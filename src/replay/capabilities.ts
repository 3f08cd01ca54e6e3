// What this replay runner can execute (sweeper architecture: RunnerCapabilities). The sweep checks a
// config against it before the first trial. TRT-LLM disaggregation is not replayable (as in Dynamo).
import { REPLAY_SPEC_API_VERSION } from './spec.js';

export const REPLAY_RUNNER_CAPABILITIES = {
  replay_spec_api_version: REPLAY_SPEC_API_VERSION,
  supported_backend_topologies: [
    ['vllm', 'agg'],
    ['vllm', 'disagg'],
    ['sglang', 'agg'],
    ['sglang', 'disagg'],
    ['trtllm', 'agg'],
  ] as [string, string][],
  supported_hooks: [
    { provider: 'dynamo.router', kind: 'placement_policy', api_version: 1 },
    { provider: 'dynamo.planner', kind: 'scaling_policy', api_version: 1 },
  ],
};
