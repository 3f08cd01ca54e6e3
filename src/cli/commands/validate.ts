// `spica validate <config>`: check a SmartSearchConfig YAML; print a short summary when valid,
// every problem (path, line, found, allowed) on stderr with exit 2 otherwise.
import { parseArgs } from 'node:util';
import type { Command, CommandIo } from '../command.js';
import { traceInputsFor } from '../../../activities/sweep-inputs.js';
import { InputError, NoViableParallelConfig } from '../../errors.js';
import { REPLAY_RUNNER_CAPABILITIES } from '../../replay/capabilities.js';
import { planSweep } from '../../search/sweepPlan.js';
import { loadConfigFile } from '../../config/load.js';
import { workloadShape, type SmartSearchConfig } from '../../config/schema.js';
import { planBranchDimensions, type BranchDimensions } from '../../search/dimensions.js';

const usage = `Usage: spica validate <config.yaml> [options]

Check a SmartSearchConfig YAML. Valid: prints a short summary (exit 0). Invalid: lists every
problem with its YAML path, line and column, the value found and what is allowed (exit 2). Also
runs the sweep's own checks before any replay — a perf database for the SKU and each backend,
pinned parallel_configs legal, at least one viable branch — and fails as \`spica sweep\` would (exit 2).

Options:
  --systems-dir DIR   directory of <hardware_sku>.yaml system files (default: the repository's systems/)
`;

/** The config file named on the command line, loaded and planned; shared with `spica explain`. */
export function loadAndPlan(argv: string[], extra: Record<string, { type: 'boolean' }> = {}) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { 'systems-dir': { type: 'string' }, ...extra },
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new InputError(`expected exactly one config file, got ${positionals.length}\n\n${usage}`);
  const path = positionals[0];
  const systemsDir = values['systems-dir'] as string | undefined;
  const config = loadConfigFile(path, { systemsDir });
  const plan = planBranchDimensions(config);
  if (plan.branches.length === 0)
    throw new InputError(`no viable deployment_mode in ${path}:\n${plan.warnings.map((w) => `  ${w}`).join('\n')}`);
  // The sweep's own preflight (perf database per SKU/backend, pins legal, a viable parallel pool per
  // branch, runner capabilities): a config valid here is one `spica sweep` accepts.
  const trace = traceInputsFor(config);
  const sweep = planSweep(config, { systemsDir, capabilities: REPLAY_RUNNER_CAPABILITIES, traceRequests: trace.traceRequests });
  if (sweep.branches.length === 0)
    throw new NoViableParallelConfig(config.search_space.deployment_mode.join('+'), sweep.warnings.join('; ') || 'no viable deployment_mode');
  return { path, config, plan, sweep, trace, flags: values as Record<string, unknown> };
}

export function describeWorkload(config: SmartSearchConfig): string {
  const w = config.workload;
  const shape = workloadShape(w);
  if (shape === 'trace')
    return `trace ${w.trace_path} (${w.trace_format}, block ${w.trace_block_size}${
      w.replay_concurrency !== undefined ? `, closed loop at concurrency ${w.replay_concurrency}, client re-issue ${w.client_reissue_ms} ms mean` : `, open loop ×${w.arrival_speedup_ratio}`
    })`;
  const load = Array.isArray(w.kv_load_ratio) ? `[${w.kv_load_ratio.join(', ')}]` : String(w[shape]);
  const client = shape === 'request_rate' ? '' : `, client re-issue ${w.client_reissue_ms} ms mean`;
  return `synthetic ${shape} ${load} (isl ${w.isl}, osl ${w.osl} ±${100 * w.output_len_spread} %, num_request_ratio ${w.num_request_ratio}${client})`;
}

export function describeGoal(config: SmartSearchConfig): string {
  const g = config.goal;
  const parts: string[] = [g.target];
  if (g.target === 'pareto') parts.push(`objectives ${g.pareto_objectives.join(', ')}`);
  if (g.sla) {
    const bounds = (['ttft_ms', 'itl_ms', 'e2e_ms'] as const).filter((k) => g.sla?.[k] !== undefined).map((k) => `${k} ${g.sla?.[k]}`);
    parts.push(`SLA ${bounds.join(', ')}${g.strict_sla ? ' (strict)' : ''}`);
  }
  return parts.join('; ');
}

function branchLine(b: BranchDimensions): string {
  const n = b.dimensions.length;
  return `${b.deployment_mode}: ${n} searched dimension${n === 1 ? '' : 's'}, ${b.dropped.length} dropped (+ latent parallel features)`;
}

async function run(argv: string[], io: CommandIo): Promise<number> {
  const { path, config, plan, sweep } = loadAndPlan(argv);
  const s = config.search_space;
  const lines = [
    `${path}: valid`,
    `  model:     ${s.model_name}`,
    `  hardware:  ${s.hardware_sku}, gpu_budget ${s.gpu_budget}${s.min_gpu_budget !== null ? ` (min ${s.min_gpu_budget})` : ''}`,
    `  modes:     ${sweep.branches.map((b) => b.plan.deployment_mode).join(', ')}`,
    `  backends:  ${s.backend.join(', ')}`,
    `  workload:  ${describeWorkload(config)}`,
    `  goal:      ${describeGoal(config)}`,
    `  sweep:     ${config.sweep.policy}/${config.sweep.algorithm}, ${config.sweep.max_rounds} rounds x ${config.sweep.candidates_per_round} candidates, seed ${config.sweep.seed}`,
    ...plan.branches.map((b) => `  branch     ${branchLine(b)}`),
    ...[...new Set([...plan.warnings, ...sweep.warnings])].map((w) => `  warning:   ${w}`),
  ];
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}

export const command: Command = { name: 'validate', summary: 'check a SmartSearchConfig YAML and print a short summary', usage, run };
