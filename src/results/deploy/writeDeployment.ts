// Writes a candidate's deployment files: k8s_deploy.yaml, run_<i>.sh / run_frontend.sh, bench_run.sh.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CandidateRow, SweepResult } from '../../search/sweepResult.js';
import { benchScript } from './benchScript.js';
import { launchScripts } from './launchScripts.js';
import { deploymentManifestYaml } from './manifest.js';
import { deploymentPlan, type PlanOptions } from './plan.js';

export function writeDeploymentFiles(result: SweepResult, row: CandidateRow, outDir: string, opts: PlanOptions = {}): { files: string[] } {
  const plan = deploymentPlan(result, row, opts);
  const outputs = [{ file: 'k8s_deploy.yaml', content: deploymentManifestYaml(plan), mode: 0o644 }, ...launchScripts(plan).map((s) => ({ ...s, mode: 0o755 })), { file: 'bench_run.sh', content: benchScript(result, row), mode: 0o755 }];
  mkdirSync(outDir, { recursive: true });
  return {
    files: outputs.map(({ file, content, mode }) => {
      const path = join(outDir, file);
      writeFileSync(path, content);
      chmodSync(path, mode);
      return path;
    }),
  };
}
