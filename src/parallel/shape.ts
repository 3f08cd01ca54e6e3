// Parallel shapes in the seed's `parallel_configs` dict form (snake_case, as YAML and JSON carry them).

/** One worker (engine): it spans tp × pp × attention_dp GPUs. */
export interface ParallelShape {
  tp: number;
  pp: number;
  attention_dp: number;
  moe_tp: number;
  moe_ep: number;
}

/** A worker shape and how many identical workers run it. */
export interface WorkerGroup extends ParallelShape {
  replicas: number;
}

export interface DisaggParallelConfig {
  prefill: WorkerGroup;
  decode: WorkerGroup;
}

export type DeploymentMode = 'agg' | 'disagg';

export type ParallelConfig = WorkerGroup | DisaggParallelConfig;

export type Strategy = 'tp' | 'tep' | 'dep' | 'dtp' | 'mixed';

export function gpusPerWorker(s: ParallelShape): number {
  return s.tp * s.pp * s.attention_dp;
}

export function isDisagg(c: ParallelConfig): c is DisaggParallelConfig {
  return (c as DisaggParallelConfig).prefill !== undefined;
}

export function usedGpus(c: ParallelConfig): number {
  if (isDisagg(c)) return gpusPerWorker(c.prefill) * c.prefill.replicas + gpusPerWorker(c.decode) * c.decode.replicas;
  return gpusPerWorker(c) * c.replicas;
}

/** The seed's derived `strategy`: TP / TEP / DEP / DTP, or `mixed` for anything else. */
export function strategyOf(s: ParallelShape): Strategy {
  const { tp, attention_dp: dp, moe_tp: mtp, moe_ep: mep } = s;
  if (mep > 1 && mtp === 1 && tp > 1 && dp === 1) return 'tep';
  if (mep > 1 && mtp === 1 && tp === 1 && dp > 1) return 'dep';
  if (mep === 1 && dp > 1 && tp === 1) return 'dtp';
  if (mep === 1 && dp === 1) return 'tp';
  return 'mixed';
}
