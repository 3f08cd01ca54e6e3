// One worker's engine arguments in its backend's own flag spelling (Dynamo's `python3 -m
// dynamo.<backend>` wrappers pass engine flags through), its environment, and the simulated
// settings that have no flag (written as comments, never dropped: CLARIFICATIONS §F).
// Mapping notes (why, where unsure):
//  - vLLM: TP = tp, DP = attention_dp, `--enable-expert-parallel` when moe_ep > 1 (vLLM derives the
//    EP size as TP × DP; without it the experts are tensor-parallel over TP × DP). MTP via
//    `--speculative-config {"method":"mtp",…}`. G2 (host) offload through Dynamo's KVBM connector.
//  - SGLang: `--tp-size` counts every GPU of the worker (tp × attention_dp) and `--dp-size` with
//    `--enable-dp-attention` splits attention; `--ep-size` = moe_ep. MTP via SGLang's EAGLE flags.
//    G2 through SGLang's hierarchical cache, sized in GB (the exact block count is a comment).
//  - TRT-LLM: `--tensor-parallel-size` = tp × attention_dp (attention DP runs inside the TP group),
//    `--moe-expert-parallel-size` = moe_ep; block reuse, KV dtype, attention DP, chunked prefill, MTP
//    and the KVBM connector have no plain flag, so they go into `--override-engine-args` JSON
//    (TRT-LLM LLM-API field names). Quantization is read from the checkpoint.
//  - Disaggregated roles: `--disaggregation-mode prefill|decode` (the flag Dynamo ≥ 0.8 workers take);
//    SGLang also needs its transfer backend (NIXL).
import type { KvCacheDtype, WeightQuant } from '../../model/arch.js';
import type { WorkerGroup } from '../../parallel/shape.js';
import type { EngineArgs } from '../../replay/spec.js';
import type { DeploymentRecord } from '../../search/deploymentRecord.js';
import type { WorkerRole } from '../roles.js';
import type { UnflaggedSetting } from './unflagged.js';

export type DeployBackend = 'vllm' | 'sglang' | 'trtllm';

export interface WorkerArgsInput {
  backend: DeployBackend;
  role: WorkerRole;
  group: WorkerGroup;
  engine: EngineArgs;
  deployment: DeploymentRecord;
  /** The checkpoint's own weight quantization and KV dtype (what the engine uses without a flag). */
  checkpoint: { quantization: WeightQuant; kv_cache_dtype: KvCacheDtype };
}

export interface WorkerLaunch {
  args: string[];
  env: Record<string, string>;
  notes: UnflaggedSetting[];
}

/** The Python module that runs a worker of this backend. */
export const WORKER_MODULE: Record<DeployBackend, string> = {
  vllm: 'dynamo.vllm',
  sglang: 'dynamo.sglang',
  trtllm: 'dynamo.trtllm',
};

/** KVBM's host-tier size in blocks (Dynamo KVBM docs: exact block count instead of GB). */
export const KVBM_HOST_BLOCKS_ENV = 'DYN_KVBM_CPU_CACHE_OVERRIDE_NUM_BLOCKS';

/** `--quantization` values of vLLM / SGLang for an override of the checkpoint's own quantization. */
const QUANT_FLAG: Record<WeightQuant, string | null> = { bf16: null, fp8: 'fp8', fp8_block: 'fp8', nvfp4: 'modelopt_fp4', mxfp4: 'mxfp4' };

function disaggFlags(role: WorkerRole): string[] {
  return role === 'agg' ? [] : ['--disaggregation-mode', role];
}

/** Settings every backend leaves to the platform or derives itself. */
function commonNotes(i: WorkerArgsInput): UnflaggedSetting[] {
  const d = i.deployment;
  const notes: UnflaggedSetting[] = [];
  if (i.engine.startup_time !== null)
    notes.push({ setting: 'startup_time', value: i.engine.startup_time, why: 'seconds before a worker the planner adds serves; set by how fast the platform starts a pod' });
  if (d.backend_deployment.kv_offload.num_g2_blocks > 0) {
    notes.push({ setting: 'kv_offload.bandwidth_g1_to_g2_gbps', value: d.resolved.g2_d2h_gbps, why: 'the host link the offload uses is the hardware\'s' });
    notes.push({ setting: 'kv_offload.bandwidth_g2_to_g1_gbps', value: d.resolved.g2_h2d_gbps, why: 'the host link the offload uses is the hardware\'s' });
    notes.push({ setting: 'kv_offload.offload_batch_size', value: d.resolved.offload_batch_size, why: 'KVBM batches offloads itself' });
  }
  return notes;
}

/** A `--quantization` override, or a note that the checkpoint's own quantization serves. */
function quantization(i: WorkerArgsInput, flagged: boolean): { args: string[]; notes: UnflaggedSetting[] } {
  const q = i.deployment.resolved.quantization;
  const flag = QUANT_FLAG[q];
  if (flagged && q !== i.checkpoint.quantization && flag) return { args: ['--quantization', flag], notes: [] };
  return { args: [], notes: [{ setting: 'quantization', value: q, why: q === i.checkpoint.quantization ? 'the checkpoint\'s own; the engine reads it from the checkpoint' : 'the engine reads the weights\' quantization from the checkpoint: serve a checkpoint in this format' }] };
}

function g2Blocks(i: WorkerArgsInput): number {
  return i.deployment.backend_deployment.kv_offload.num_g2_blocks;
}

function vllmArgs(i: WorkerArgsInput): WorkerLaunch {
  const { role, group: g, engine: e, deployment: d } = i;
  const a = ['--model', d.backend_deployment.model_name, '--tensor-parallel-size', String(g.tp), '--data-parallel-size', String(g.attention_dp)];
  if (g.pp > 1) a.push('--pipeline-parallel-size', String(g.pp));
  if (g.moe_ep > 1) a.push('--enable-expert-parallel');
  a.push(
    '--max-num-seqs', String(e.max_num_seqs),
    '--max-num-batched-tokens', String(e.max_num_batched_tokens),
    '--block-size', String(e.block_size),
    '--gpu-memory-utilization', String(e.gpu_memory_utilization),
    e.enable_prefix_caching ? '--enable-prefix-caching' : '--no-enable-prefix-caching',
    '--enable-chunked-prefill',
    '--max-model-len', String(d.resolved.context_length),
    '--kv-cache-dtype', d.resolved.kv_cache_dtype === 'fp8' ? 'fp8' : 'bfloat16',
  );
  const q = quantization(i, true);
  a.push(...q.args);
  if (e.nextn) a.push('--speculative-config', JSON.stringify({ method: 'mtp', num_speculative_tokens: e.nextn }));
  const env: Record<string, string> = {};
  if (g2Blocks(i) > 0) {
    a.push('--connector', 'kvbm');
    env[KVBM_HOST_BLOCKS_ENV] = String(g2Blocks(i));
  }
  return { args: [...a, ...disaggFlags(role)], env, notes: [...q.notes, ...commonNotes(i)] };
}

function sglangArgs(i: WorkerArgsInput): WorkerLaunch {
  const { role, group: g, engine: e, deployment: d } = i;
  const a = ['--model-path', d.backend_deployment.model_name, '--tp-size', String(g.tp * g.attention_dp), '--dp-size', String(g.attention_dp)];
  if (g.attention_dp > 1) a.push('--enable-dp-attention');
  a.push('--ep-size', String(g.moe_ep));
  if (g.pp > 1) a.push('--pp-size', String(g.pp));
  a.push(
    '--max-running-requests', String(e.max_num_seqs),
    '--chunked-prefill-size', String(e.max_num_batched_tokens),
    '--page-size', String(e.block_size),
    '--mem-fraction-static', String(e.gpu_memory_utilization),
    '--context-length', String(d.resolved.context_length),
    '--kv-cache-dtype', d.resolved.kv_cache_dtype === 'fp8' ? 'fp8_e4m3' : i.checkpoint.kv_cache_dtype === 'bf16' ? 'auto' : 'bf16',
  );
  if (!e.enable_prefix_caching) a.push('--disable-radix-cache');
  const q = quantization(i, true);
  a.push(...q.args);
  if (e.nextn)
    a.push('--speculative-algorithm', 'EAGLE', '--speculative-num-steps', String(e.nextn), '--speculative-eagle-topk', '1', '--speculative-num-draft-tokens', String(e.nextn + 1));
  const notes = [...q.notes, ...commonNotes(i)];
  const blocks = g2Blocks(i);
  if (blocks > 0) {
    const gb = Math.ceil((blocks * e.block_size * d.resolved.kv_bytes_per_token) / 1e9);
    a.push('--enable-hierarchical-cache', '--hicache-size', String(gb));
    notes.push({ setting: 'kv_offload.num_g2_blocks', value: blocks, why: `SGLang sizes its host cache in GB: --hicache-size ${gb} rounds ${blocks} blocks × ${e.block_size} tokens × ${d.resolved.kv_bytes_per_token} B up` });
  }
  if (role !== 'agg') a.push(...disaggFlags(role), '--disaggregation-transfer-backend', 'nixl');
  return { args: a, env: {}, notes };
}

function trtllmArgs(i: WorkerArgsInput): WorkerLaunch {
  const { role, group: g, engine: e, deployment: d } = i;
  const a = ['--model-path', d.backend_deployment.model_name, '--tensor-parallel-size', String(g.tp * g.attention_dp)];
  if (g.pp > 1) a.push('--pipeline-parallel-size', String(g.pp));
  a.push(
    '--moe-expert-parallel-size', String(g.moe_ep),
    '--max-batch-size', String(e.max_num_seqs),
    '--max-num-tokens', String(e.max_num_batched_tokens),
    '--kv-block-size', String(e.block_size),
    '--kv-cache-free-gpu-memory-fraction', String(e.gpu_memory_utilization),
    '--max-seq-len', String(d.resolved.context_length),
  );
  const overrides: Record<string, unknown> = {
    kv_cache_config: { enable_block_reuse: e.enable_prefix_caching, dtype: d.resolved.kv_cache_dtype === 'fp8' ? 'fp8' : 'auto' },
    enable_chunked_prefill: true,
  };
  if (g.attention_dp > 1) overrides.enable_attention_dp = true;
  if (e.nextn) overrides.speculative_config = { decoding_type: 'MTP', num_nextn_predict_layers: e.nextn };
  const env: Record<string, string> = {};
  if (g2Blocks(i) > 0) {
    overrides.kv_connector_config = { connector_module: 'kvbm.trtllm_integration.connector', connector_scheduler_class: 'DynamoKVBMConnectorLeader', connector_worker_class: 'DynamoKVBMConnectorWorker' };
    env[KVBM_HOST_BLOCKS_ENV] = String(g2Blocks(i));
  }
  a.push('--override-engine-args', JSON.stringify(overrides));
  const q = quantization(i, false);
  return { args: [...a, ...disaggFlags(role)], env, notes: [...q.notes, ...commonNotes(i)] };
}

export function workerLaunch(input: WorkerArgsInput): WorkerLaunch {
  switch (input.backend) {
    case 'vllm':
      return vllmArgs(input);
    case 'sglang':
      return sglangArgs(input);
    case 'trtllm':
      return trtllmArgs(input);
  }
}
