// front.md beside the per-member folders `spica deploy` writes for a Pareto result: which folder holds
// which trade-off, so a user picks a deployment by its objectives, not by its id.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CandidateRow, SweepResult } from '../../search/sweepResult.js';

const fmt = (v: number | undefined) => (v === undefined ? '—' : Number.isInteger(v) ? String(v) : v.toPrecision(4));

/** Writes `<out>/front.md` (one row per front member, in the front's order) and returns its path. */
export function writeFrontIndex(result: SweepResult, rows: readonly CandidateRow[], out: string): string {
  const names = result.objectives.map((o) => o.name);
  const header = ['folder', 'mode', 'backend', 'GPUs', ...names.map((n) => `${n} (${result.objectives.find((o) => o.name === n)?.direction})`), 'mean TTFT ms', 'mean TPOT ms'];
  const lines = [
    `# Pareto front of ${result.question.model_name} on ${result.question.hardware_sku} (${rows.length} deployments)`,
    '',
    'Each folder holds one front member\'s k8s_deploy.yaml, launch scripts and bench_run.sh; pick by the trade-off.',
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) =>
      `| ${[`${r.id}/`, r.config.deployment_mode, r.config.backend, String(r.used_gpus), ...names.map((n) => fmt(r.objectives?.[n])), fmt(r.metrics?.mean_ttft_ms), fmt(r.metrics?.mean_tpot_ms)].join(' | ')} |`,
    ),
    '',
  ];
  const path = join(out, 'front.md');
  writeFileSync(path, lines.join('\n'));
  return path;
}
