// Keeps a planner's replica counts inside [min_gpu_budget, gpu_budget] total GPUs without going below
// the per-role replica floor (min_endpoint). Over budget: shrink every role by the same factor (as
// Dynamo's planner does), then trim the largest GPU consumer one replica at a time. Under the minimum:
// grow the smallest consumer one replica at a time. The floor wins over the budget: a deployment
// whose floors alone exceed the budget stays at its floors.

export interface RoleCount {
  replicas: number;
  gpusPerWorker: number;
}

function total(rs: readonly RoleCount[]): number {
  let s = 0;
  for (const r of rs) s += r.replicas * r.gpusPerWorker;
  return s;
}

export function clampToGpuBudget(want: readonly RoleCount[], floor: number, minGpus: number, maxGpus: number): number[] {
  const rs = want.map((r) => ({ replicas: Math.max(floor, Math.ceil(r.replicas)), gpusPerWorker: r.gpusPerWorker }));
  const t0 = total(rs);
  if (t0 > maxGpus) {
    const f = maxGpus / t0;
    for (const r of rs) r.replicas = Math.max(floor, Math.floor(r.replicas * f));
    while (total(rs) > maxGpus) {
      let pick = -1;
      for (let i = 0; i < rs.length; i++)
        if (rs[i].replicas > floor && (pick < 0 || rs[i].replicas * rs[i].gpusPerWorker > rs[pick].replicas * rs[pick].gpusPerWorker)) pick = i;
      if (pick < 0) break;
      rs[pick].replicas--;
    }
  }
  while (total(rs) < minGpus) {
    let pick = -1;
    for (let i = 0; i < rs.length; i++) {
      if (total(rs) + rs[i].gpusPerWorker > maxGpus) continue;
      if (pick < 0 || rs[i].replicas * rs[i].gpusPerWorker < rs[pick].replicas * rs[pick].gpusPerWorker) pick = i;
    }
    if (pick < 0) break;
    rs[pick].replicas++;
  }
  return rs.map((r) => r.replicas);
}
