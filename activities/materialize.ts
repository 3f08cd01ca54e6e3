// `materializeCandidates` activity: points → concrete candidates for one branch, with the
// deterministic BranchMaterializer rebuilt (and cached per worker process) from the config. Keys are
// shortened to their sha256: the round loop only compares them, and trials carried across
// continue-as-new must stay small.
import { createHash } from 'node:crypto';
import type { Point } from '../src/search/optimizer/space.js';
import type { MaterializedCandidate } from '../src/search/study/materialize.js';
import type { ActivityContext, BranchContext } from '../workflows/sweep-types.js';
import { resolveContext } from './context.js';
import { nonRetryable } from './plan.js';
import { cachedSweepPlan } from './sweep-inputs.js';
import { testPause } from './test-pause.js';

export function branchMaterializer(context: BranchContext) {
  const { plan } = cachedSweepPlan(context.config);
  const branch = plan.branches.find((b) => b.plan.deployment_mode === context.mode);
  if (!branch) throw new Error(`the plan of this config has no '${context.mode}' branch`);
  return branch.materializer;
}

export function compactKey(key: string): string {
  return key === '' ? '' : createHash('sha256').update(key).digest('hex');
}

export async function materializeCandidates(input: { context: ActivityContext; points: Point[] }): Promise<MaterializedCandidate[]> {
  await testPause('materialize');
  const context = await resolveContext(input.context);
  let materializer: ReturnType<typeof branchMaterializer>;
  try {
    materializer = branchMaterializer(context);
  } catch (err) {
    nonRetryable(err);
  }
  return input.points.map((p) => {
    const m = materializer.materialize(p);
    return { ...m, key: compactKey(m.key) };
  });
}
