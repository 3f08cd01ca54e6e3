// Every feasible candidate of every example sweep deploys (the user path: sweep --local --out, then
// spica deploy --candidate), and what it records is the ReplaySpec the sweep's evaluator replayed.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { replaySpecFor } from '../../activities/evaluate.js';
import { loadConfigFile } from '../../src/config/load.js';
import { readSweepResult } from '../../src/results/readResult.js';
import { deploymentRecordOf } from '../../src/search/deploymentRecord.js';
import { spica } from './deploy-harness.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'spica-deploy-examples-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));


describe('deploy every feasible candidate of every example', () => {
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml'));
  it.each(files)('%s', async (f) => {
    const out = join(root, f, 'out');
    const sweep = await spica(['sweep', join(EXAMPLES, f), '--local', '--out', out]);
    expect(sweep.code, sweep.stderr).toBe(0);
    const result = readSweepResult(join(out, 'result.json'));
    const config = loadConfigFile(join(EXAMPLES, f));
    const feasible = result.candidates.filter((c) => c.status === 'feasible');
    expect(feasible.length).toBeGreaterThan(0);
    for (const row of feasible) {
      // The record is the evaluator's ReplaySpec (the same materialization, nothing filled in later).
      const spec = replaySpecFor({ config, traceSha256: null }, { key: '', candidate: row.config, used_gpus: row.used_gpus, concurrency: row.concurrency, projection: null, rejection: null });
      expect(row.deployment).toEqual(deploymentRecordOf(spec));
      const dep = join(root, f, row.id);
      const r = await spica(['deploy', join(out, 'result.json'), '--candidate', row.id, '--out', dep]);
      expect(r.code, r.stderr).toBe(0);
      for (const file of ['k8s_deploy.yaml', 'run_frontend.sh', 'run_0.sh', 'bench_run.sh']) expect(existsSync(join(dep, file)), file).toBe(true);
      const manifest = parse(readFileSync(join(dep, 'k8s_deploy.yaml'), 'utf8'));
      const workers = Object.values(manifest.spec.services as Record<string, { componentType: string; replicas: number }>).filter((s) => s.componentType === 'worker');
      expect(workers.length).toBe(row.config.deployment_mode === 'agg' ? 1 : 2);
    }
    // Without --candidate (the README's user path): the top-ranked one, or every Pareto front member.
    const implicit = await spica(['deploy', join(out, 'result.json'), '--out', join(root, f, 'implicit')]);
    expect(implicit.code, implicit.stderr).toBe(0);
    if ('pareto_front' in result.views)
      for (const id of result.views.pareto_front) expect(existsSync(join(root, f, 'implicit', id, 'k8s_deploy.yaml')), id).toBe(true);
    else expect(existsSync(join(root, f, 'implicit', 'k8s_deploy.yaml'))).toBe(true);
  }, 120_000);
});
