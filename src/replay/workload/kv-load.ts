// Closed-loop concurrency for a `kv_load_ratio` workload (dynamo-facts §2): the fraction of the
// serving role's KV capacity the workload should keep busy, at isl + osl/2 tokens per request.

export interface KvLoadInputs {
  ratio: number;
  /** KV tokens of one attention rank of the serving role (decode for disagg, agg for agg). */
  perRankTokens: number;
  blockSize: number;
  attentionDp: number;
  replicas: number;
  isl: number;
  osl: number;
}

/** Derived concurrency, or 0 when the role has no KV budget (the candidate is infeasible before replay). */
export function kvLoadConcurrency(x: KvLoadInputs): number {
  const perRankUsable = Math.floor(x.perRankTokens / x.blockSize) * x.blockSize;
  const roleCapacity = perRankUsable * x.attentionDp * x.replicas;
  if (roleCapacity <= 0) return 0;
  const avgTokensPerReq = x.isl + Math.floor(x.osl / 2);
  const capacityConc = Math.floor(roleCapacity / avgTokensPerReq);
  return Math.max(1, Math.floor(x.ratio * capacityConc));
}

/** `num_requests = max(1, round(num_request_ratio × load))`. */
export function syntheticRequestCount(numRequestRatio: number, load: number): number {
  return Math.max(1, Math.round(numRequestRatio * load));
}
