// One deployment_mode branch of a sweep. Today it only reports the branch's resolved dimensions;
// the ask → project → replay → tell loop grows here (DESIGN "Temporal shape").
import type { BranchStudyInput, BranchStudyResult } from './sweep-types.js';

export async function branchStudy(input: BranchStudyInput): Promise<BranchStudyResult> {
  return { deployment_mode: input.branch.deployment_mode, branch: input.branch };
}
