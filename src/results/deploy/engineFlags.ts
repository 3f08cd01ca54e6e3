// One worker's engine arguments in its backend's own flag spelling (Dynamo's `python3 -m
// dynamo.<backend>` wrappers pass engine flags through). Mapping notes (why, where unsure):
//  - vLLM: TP = tp, DP = attention_dp, `--enable-expert-parallel` when moe_ep > 1 (vLLM derives the
//    EP size as TP × DP). MTP via `--speculative-config {"method":"mtp",…}`.
//  - SGLang: `--tp-size` counts every GPU of the worker (tp × attention_dp) and `--dp-size` with
//    `--enable-dp-attention` splits attention; `--ep-size` = moe_ep. MTP via SGLang's EAGLE flags.
//  - TRT-LLM: `--tensor-parallel-size` = tp × attention_dp (attention DP runs inside the TP group),
//    `--moe-expert-parallel-size` = moe_ep; block reuse, attention DP and MTP have no plain flag,
//    so they go into `--override-engine-args` JSON (TRT-LLM LLM-API field names).
//  - Disaggregated roles: `--disaggregation-mode prefill|decode` (the flag Dynamo ≥ 0.8 workers take;
//    older vLLM workers used `--is-prefill-worker`); SGLang also needs its transfer backend (NIXL).
import type { WorkerGroup } from '../../parallel/shape.js';
import type { RoleEngineSettings } from '../engineSettings.js';
import type { WorkerRole } from '../roles.js';

export type DeployBackend = 'vllm' | 'sglang' | 'trtllm';

export interface WorkerArgsInput {
  backend: DeployBackend;
  role: WorkerRole;
  model: string;
  group: WorkerGroup;
  engine: RoleEngineSettings;
}

/** The Python module that runs a worker of this backend. */
export const WORKER_MODULE: Record<DeployBackend, string> = {
  vllm: 'dynamo.vllm',
  sglang: 'dynamo.sglang',
  trtllm: 'dynamo.trtllm',
};

function disaggFlags(role: WorkerRole): string[] {
  return role === 'agg' ? [] : ['--disaggregation-mode', role];
}

function vllmArgs({ role, model, group: g, engine: e }: WorkerArgsInput): string[] {
  const a = ['--model', model, '--tensor-parallel-size', String(g.tp), '--data-parallel-size', String(g.attention_dp)];
  if (g.pp > 1) a.push('--pipeline-parallel-size', String(g.pp));
  if (g.moe_ep > 1) a.push('--enable-expert-parallel');
  a.push(
    '--max-num-seqs', String(e.max_num_seqs),
    '--max-num-batched-tokens', String(e.max_num_batched_tokens),
    '--block-size', String(e.block_size),
    '--gpu-memory-utilization', String(e.gpu_memory_utilization),
    e.enable_prefix_caching ? '--enable-prefix-caching' : '--no-enable-prefix-caching',
  );
  if (e.nextn) a.push('--speculative-config', JSON.stringify({ method: 'mtp', num_speculative_tokens: e.nextn }));
  return [...a, ...disaggFlags(role)];
}

function sglangArgs({ role, model, group: g, engine: e }: WorkerArgsInput): string[] {
  const a = ['--model-path', model, '--tp-size', String(g.tp * g.attention_dp), '--dp-size', String(g.attention_dp)];
  if (g.attention_dp > 1) a.push('--enable-dp-attention');
  a.push('--ep-size', String(g.moe_ep));
  if (g.pp > 1) a.push('--pp-size', String(g.pp));
  a.push(
    '--max-running-requests', String(e.max_num_seqs),
    '--chunked-prefill-size', String(e.max_num_batched_tokens),
    '--page-size', String(e.block_size),
    '--mem-fraction-static', String(e.gpu_memory_utilization),
  );
  if (!e.enable_prefix_caching) a.push('--disable-radix-cache');
  if (e.nextn)
    a.push('--speculative-algorithm', 'EAGLE', '--speculative-num-steps', String(e.nextn), '--speculative-eagle-topk', '1', '--speculative-num-draft-tokens', String(e.nextn + 1));
  if (role !== 'agg') a.push(...disaggFlags(role), '--disaggregation-transfer-backend', 'nixl');
  return a;
}

function trtllmArgs({ role, model, group: g, engine: e }: WorkerArgsInput): string[] {
  const a = ['--model-path', model, '--tensor-parallel-size', String(g.tp * g.attention_dp)];
  if (g.pp > 1) a.push('--pipeline-parallel-size', String(g.pp));
  a.push(
    '--moe-expert-parallel-size', String(g.moe_ep),
    '--max-batch-size', String(e.max_num_seqs),
    '--max-num-tokens', String(e.max_num_batched_tokens),
    '--kv-block-size', String(e.block_size),
    '--kv-cache-free-gpu-memory-fraction', String(e.gpu_memory_utilization),
  );
  const overrides: Record<string, unknown> = { kv_cache_config: { enable_block_reuse: e.enable_prefix_caching } };
  if (g.attention_dp > 1) overrides.enable_attention_dp = true;
  if (e.nextn) overrides.speculative_config = { decoding_type: 'MTP', num_nextn_predict_layers: e.nextn };
  a.push('--override-engine-args', JSON.stringify(overrides));
  return [...a, ...disaggFlags(role)];
}

export function workerArgs(input: WorkerArgsInput): string[] {
  switch (input.backend) {
    case 'vllm':
      return vllmArgs(input);
    case 'sglang':
      return sglangArgs(input);
    case 'trtllm':
      return trtllmArgs(input);
  }
}
