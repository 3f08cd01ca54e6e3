// `spica configs <config>`: the parallel-config pool of each deployment_mode branch (enumerated or pinned),
// each config with its used GPUs, strategy, per-rank KV capacity and legal backends; `--all` adds the
// pruned shapes with their reasons.
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import type { Command, CommandIo } from '../command.js';
import { InputError } from '../../errors.js';
import { loadConfigFile } from '../../config/load.js';
import type { SmartSearchConfig } from '../../config/schema.js';
import { BACKENDS, type Backend } from '../../model/arch.js';
import { planParallel, type ParallelPlan } from '../../parallel/fromConfig.js';
import { canonicalConfig, type BranchPool, type PoolMember, type PrunedShape } from '../../parallel/pool.js';
import { gpusPerWorker, isDisagg, strategyOf, usedGpus, type DeploymentMode, type ParallelShape, type WorkerGroup } from '../../parallel/shape.js';

const usage = `Usage: spica configs <config.yaml> [--mode agg|disagg] [--backend B] [--all] [--json]

List the parallel-config pool of each deployment_mode branch: the KV-feasible shapes and replica
counts within the GPU budget (or the pinned parallel_configs), with the backends each is legal for.

Options:
  --mode M               only this deployment_mode branch (agg | disagg)
  --backend B            only configs legal for this backend (vllm | sglang | trtllm)
  --all                  also list the pruned shapes and why they were pruned
  --json                 one JSON document {"configs":[…],"pruned":[…]} on stdout
  --systems-dir DIR      directory of <hardware_sku>.yaml system files
  --coefficients-dir DIR directory of fitted perf-model coefficients (<sku>/<backend>.json)
`;

export const PLAN_OPTIONS = {
  mode: { type: 'string' },
  backend: { type: 'string' },
  json: { type: 'boolean' },
  'systems-dir': { type: 'string' },
  'coefficients-dir': { type: 'string' },
} as const;

export interface PlanRequest {
  path: string;
  mode?: string;
  backend?: string;
  systemsDir?: string;
  coefficientsDir?: string;
}

function parseMode(config: SmartSearchConfig, mode: string | undefined): DeploymentMode | undefined {
  if (mode === undefined) return undefined;
  if (mode !== 'agg' && mode !== 'disagg') throw new InputError(`--mode must be agg or disagg (got '${mode}')`);
  if (!config.search_space.deployment_mode.includes(mode)) {
    throw new InputError(`--mode ${mode} is not in search_space.deployment_mode [${config.search_space.deployment_mode.join(', ')}]`);
  }
  return mode;
}

function parseBackend(config: SmartSearchConfig, backend: string | undefined): Backend | undefined {
  if (backend === undefined) return undefined;
  if (!(BACKENDS as readonly string[]).includes(backend)) throw new InputError(`--backend must be one of ${BACKENDS.join(', ')} (got '${backend}')`);
  if (!config.search_space.backend.includes(backend as Backend)) {
    throw new InputError(`--backend ${backend} is not in search_space.backend [${config.search_space.backend.join(', ')}]`);
  }
  return backend as Backend;
}

/** Loads the config and plans its parallel branches (only `mode`'s when given). Shared with `spica project`. */
export function loadParallelPlan(req: PlanRequest): { config: SmartSearchConfig; plan: ParallelPlan; mode?: DeploymentMode; backend?: Backend } {
  const config = loadConfigFile(req.path, { systemsDir: req.systemsDir });
  const mode = parseMode(config, req.mode);
  const backend = parseBackend(config, req.backend);
  const scoped: SmartSearchConfig = mode ? { ...config, search_space: { ...config.search_space, deployment_mode: [mode] } } : config;
  const plan = planParallel(scoped, { baseDir: dirname(req.path), systemsDir: req.systemsDir, coefficientsDir: req.coefficientsDir });
  return { config, plan, mode, backend };
}

type Strategy = ReturnType<typeof strategyOf>;

/** One pool member in the seed's parallel_configs dict form plus the derived fields. */
export function configEntry(mode: DeploymentMode, m: PoolMember) {
  const config = canonicalConfig(m.config);
  const strategy: Strategy | { prefill: Strategy; decode: Strategy } = isDisagg(config)
    ? { prefill: strategyOf(config.prefill), decode: strategyOf(config.decode) }
    : strategyOf(config);
  return {
    deployment_mode: mode,
    ...config,
    used_gpus: usedGpus(config),
    strategy,
    kv_capacity_tokens_per_rank: m.kv_capacity_tokens_per_rank,
    backends: m.backends,
  };
}

function prunedEntry(mode: DeploymentMode, p: PrunedShape) {
  return { deployment_mode: mode, role: p.role, backend: p.backend, ...p.shape, reason: p.reason, detail: p.detail };
}

function shapeText(g: ParallelShape): string {
  const dims = [`tp${g.tp}`];
  if (g.pp > 1) dims.push(`pp${g.pp}`);
  if (g.attention_dp > 1) dims.push(`dp${g.attention_dp}`);
  if (g.moe_tp > 1) dims.push(`moe_tp${g.moe_tp}`);
  if (g.moe_ep > 1) dims.push(`moe_ep${g.moe_ep}`);
  return dims.join(' ');
}

function groupText(g: WorkerGroup): string {
  return `${g.replicas}×(${shapeText(g)})`;
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

function branchTable(b: BranchPool, members: PoolMember[]): string {
  const rows = [['config', 'gpus', 'strategy', 'kv_tokens/rank', 'backends']];
  for (const m of members) {
    const c = m.config;
    const kv = m.kv_capacity_tokens_per_rank;
    rows.push(
      isDisagg(c)
        ? [
            `P ${groupText(c.prefill)} + D ${groupText(c.decode)}`,
            String(usedGpus(c)),
            `${strategyOf(c.prefill)}/${strategyOf(c.decode)}`,
            typeof kv === 'number' ? String(kv) : `${kv.prefill}/${kv.decode}`,
            m.backends.join(','),
          ]
        : [groupText(c), String(usedGpus(c)), strategyOf(c), String(kv), m.backends.join(',')],
    );
  }
  return table(rows);
}

function prunedTable(pruned: PrunedShape[]): string {
  const rows = [['role', 'backend', 'shape', 'gpus', 'reason', 'detail']];
  for (const p of pruned) {
    rows.push([p.role, p.backend, shapeText(p.shape), String(gpusPerWorker(p.shape)), p.reason, p.detail]);
  }
  return table(rows);
}

async function run(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...PLAN_OPTIONS, all: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new InputError(`expected exactly one config file, got ${positionals.length}\n\n${usage}`);
  const { plan, backend } = loadParallelPlan({
    path: positionals[0],
    mode: values.mode,
    backend: values.backend,
    systemsDir: values['systems-dir'],
    coefficientsDir: values['coefficients-dir'],
  });
  for (const w of plan.warnings) io.stderr(`warning: ${w}\n`);
  const shown = plan.branches.map((b) => ({
    branch: b,
    members: backend ? b.members.filter((m) => m.backends.includes(backend)) : b.members,
    pruned: values.all ? (backend ? b.pruned.filter((p) => p.backend === backend) : b.pruned) : [],
  }));
  if (values.json) {
    const doc = {
      configs: shown.flatMap((s) => s.members.map((m) => configEntry(s.branch.mode, m))),
      pruned: shown.flatMap((s) => s.pruned.map((p) => prunedEntry(s.branch.mode, p))),
    };
    io.stdout(`${JSON.stringify(doc, null, 2)}\n`);
    return 0;
  }
  const parts: string[] = [];
  for (const s of shown) {
    const b = s.branch;
    parts.push(
      `${b.mode}: ${s.members.length} config${s.members.length === 1 ? '' : 's'} (gpu_budget ${b.gpuBudget}; backends ${b.backends.join(', ')})`,
    );
    if (s.members.length > 0) parts.push(branchTable(b, s.members));
    if (values.all) parts.push(s.pruned.length > 0 ? `\n${b.mode} pruned:\n${prunedTable(s.pruned)}` : `\n${b.mode} pruned: none`);
    parts.push('');
  }
  io.stdout(`${parts.join('\n')}`);
  return 0;
}

export const command: Command = { name: 'configs', summary: 'list the parallel-config pool of a config', usage, run };
