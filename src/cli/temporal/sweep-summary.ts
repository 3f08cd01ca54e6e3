// Human-readable rendering of a sweep result for `spica sweep` without --json.
import type { SweepRunResult } from '../../../workflows/sweep-types.js';

export function formatSweepSummary(result: SweepRunResult): string {
  const { labels } = result;
  const lines = [`sweep ${result.workflowId}: ${labels.model} on ${labels.hardware}, goal ${labels.goal}, seed ${result.seed}`];
  for (const { deployment_mode, branch } of result.branches) {
    const dims = branch.dimensions.map((d) => `${d.name}(${Array.isArray(d.values) ? d.values.length : '?'})`);
    lines.push(`  ${deployment_mode}: backends ${branch.backends.join(', ')}; ${dims.length} searched dimension(s)${dims.length ? `: ${dims.join(' ')}` : ''}`);
  }
  for (const w of result.warnings) lines.push(`  warning: ${w}`);
  return `${lines.join('\n')}\n`;
}
