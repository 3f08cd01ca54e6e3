// `spica replay <config> [--candidate <json-or-file>] [--json]`: one replay of one candidate through the
// simulator. Without --candidate the config must leave exactly one value for every dimension.
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Command, CommandIo } from '../command.js';
import { InputError } from '../../errors.js';
import { loadConfigFile } from '../../config/load.js';
import type { SmartSearchConfig } from '../../config/schema.js';
import { planParallel } from '../../parallel/fromConfig.js';
import { usedGpus } from '../../parallel/shape.js';
import { materializeReplaySpec, type FlatCandidateInput } from '../../replay/spec.js';
import { runReplay } from '../../replay/resolve.js';
import type { ReplayReport } from '../../replay/report.js';
import { readTrace } from '../../replay/workload/trace-file.js';

const usage = `Usage: spica replay <config.yaml> [--candidate <json-or-file>] [--json]

Run one replay of a candidate deployment through the simulator and print its metrics.

Options:
  --candidate C          the flat candidate form, inline JSON or a file holding it:
                         {"deployment_mode","backend","engine":{<role>_<knob>: value…},
                          "parallel_config":{…},"adapters":{"dynamo.router":{…},"dynamo.planner":{…}}}
                         Knobs it leaves out take the config's value, which must then be pinned.
                         May be omitted when the config pins everything to one value.
  --kv-load-ratio R      the ratio to replay when the workload gives kv_load_ratio as a [min, max] range
  --seed N               replay seed (router sampling), default 0
  --json                 one JSON document {"metrics":{…},"metadata":{…}} on stdout
  --systems-dir DIR      directory of <hardware_sku>.yaml system files
  --coefficients-dir DIR directory of fitted perf-model coefficients
`;

function readCandidate(arg: string): unknown {
  const text = existsSync(arg) ? readFileSync(arg, 'utf8') : arg;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new InputError(`--candidate is neither a file nor valid JSON: ${(e as Error).message}`);
  }
}

/** The one candidate a fully pinned config describes (parallel config from the pin or a one-member pool). */
function pinnedCandidate(config: SmartSearchConfig, opts: { systemsDir?: string; coefficientsDir?: string }): FlatCandidateInput {
  const ss = config.search_space;
  const one = <T>(name: string, list: readonly T[]): T => {
    if (list.length !== 1) throw new InputError(`the config searches ${name} (${JSON.stringify(list)}): pass --candidate`);
    return list[0];
  };
  const mode = one('deployment_mode', ss.deployment_mode);
  const backend = one('backend', ss.backend);
  let parallel = ss.parallel_configs.length === 1 ? ss.parallel_configs[0] : undefined;
  if (parallel === undefined) {
    const plan = planParallel(config, opts);
    const branch = plan.branches.find((b) => b.mode === mode);
    const members = branch?.members.filter((m) => m.backends.includes(backend)) ?? [];
    if (members.length !== 1)
      throw new InputError(`the config's ${mode} branch has ${members.length} parallel configs for ${backend}: pin one in parallel_configs or pass --candidate`);
    parallel = members[0].config;
  }
  return { deployment_mode: mode, backend, engine: {}, parallel_config: parallel, adapters: {} };
}

function format(report: ReplayReport): string {
  const m = report.metrics;
  const f = (k: string, digits = 2) => (m[k] === undefined ? '—' : m[k].toFixed(digits));
  const lines = [
    `completed ${m.completed_requests} requests in ${(m.duration_ms / 1000).toFixed(1)} s simulated (${f('rejected_requests', 0)} rejected, ${f('preemptions', 0)} preemptions)`,
    `throughput  ${f('output_throughput_tok_s', 1)} tok/s   ${f('request_throughput_rps', 3)} req/s   per GPU ${(m.avg_gpu > 0 ? m.output_throughput_tok_s / m.avg_gpu : 0).toFixed(1)} tok/s`,
    `goodput     ${f('goodput_output_throughput_tok_s', 1)} tok/s   ${f('goodput_request_throughput_rps', 3)} req/s`,
    `per user    ${f('mean_output_token_throughput_per_user', 1)} tok/s`,
    '',
    '              mean       p50       p90       p99',
  ];
  for (const [label, key] of [['TTFT ms', 'ttft_ms'], ['TPOT ms', 'tpot_ms'], ['ITL ms', 'itl_ms'], ['E2E ms', 'e2e_latency_ms']] as const)
    lines.push(`${label.padEnd(10)}${['mean', 'p50', 'p90', 'p99'].map((p) => f(`${p}_${key}`).padStart(10)).join('')}`);
  lines.push(
    '',
    `prefix cache hit rate ${(100 * (m.prefix_cache_hit_rate ?? 0)).toFixed(1)}%   GPU-hours ${f('gpu_hours', 4)}   avg GPUs ${f('avg_gpu', 2)}`,
    `spec ${String(report.metadata.spec_hash).slice(0, 16)}…   ${report.metadata.event_count} events in ${report.metadata.wall_time_ms.toFixed(0)} ms wall   planner: ${report.metadata.planner}`,
  );
  return `${lines.join('\n')}\n`;
}

async function run(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      candidate: { type: 'string' },
      seed: { type: 'string' },
      'kv-load-ratio': { type: 'string' },
      json: { type: 'boolean' },
      'systems-dir': { type: 'string' },
      'coefficients-dir': { type: 'string' },
    },
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new InputError(`expected exactly one config file, got ${positionals.length}\n\n${usage}`);
  const opts = { systemsDir: values['systems-dir'], coefficientsDir: values['coefficients-dir'] };
  const config = loadConfigFile(positionals[0], { systemsDir: opts.systemsDir });
  const candidate = values.candidate !== undefined ? (readCandidate(values.candidate) as FlatCandidateInput) : pinnedCandidate(config, opts);
  const seed = values.seed === undefined ? 0 : Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0) throw new InputError(`--seed must be a non-negative integer (got ${values.seed})`);
  const tracePath = config.workload.trace_path;
  let workload = config.workload;
  const ratioArg = values['kv-load-ratio'];
  if (ratioArg !== undefined) {
    const r = Number(ratioArg);
    if (workload.kv_load_ratio === undefined) throw new InputError('--kv-load-ratio applies only to kv_load_ratio workloads');
    if (!(r > 0 && r <= 1)) throw new InputError(`--kv-load-ratio must be in (0, 1] (got ${ratioArg})`);
    workload = { ...workload, kv_load_ratio: r };
  } else if (Array.isArray(workload.kv_load_ratio)) {
    throw new InputError(`the workload's kv_load_ratio is a range ${JSON.stringify(workload.kv_load_ratio)}: pass --kv-load-ratio R to replay one ratio`);
  }
  const spec = materializeReplaySpec(candidate, {
    searchSpace: config.search_space,
    workload,
    goal: config.goal,
    concurrency: null,
    traceSha256: tracePath !== undefined ? readTrace(tracePath).sha256 : null,
    seed,
  });
  // A deployment beyond the GPU budget is not a candidate of this config (a pin in parallel_configs is
  // refused when the config loads; a --candidate is checked here).
  const used = usedGpus(spec.backend_deployment.parallel_config);
  const budget = config.search_space.gpu_budget;
  if (used > budget)
    throw new InputError(`${values.candidate !== undefined ? '--candidate' : 'the pinned deployment'} uses ${used} GPUs, more than search_space.gpu_budget ${budget} of ${positionals[0]}: raise gpu_budget or pick a smaller shape`);
  const report = runReplay(spec, opts);
  io.stdout(values.json ? `${JSON.stringify({ metrics: report.metrics, metadata: report.metadata })}\n` : format(report));
  return report.metrics.completed_requests > 0 ? 0 : 1;
}

export const command: Command = { name: 'replay', summary: 'run one replay of a candidate through the simulator', usage, run };
