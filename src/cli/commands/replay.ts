// `spica replay <config> [--candidate <json-or-file>] [--json]`: one replay of one candidate through the
// simulator. Without --candidate the config must leave exactly one value for every dimension.
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Command, CommandIo } from '../command.js';
import { InputError } from '../../errors.js';
import { loadConfigFile } from '../../config/load.js';
import { replaySpecFromConfig } from '../../replay/from-config.js';
import type { FlatCandidateInput } from '../../replay/spec.js';
import { runReplay } from '../../replay/resolve.js';
import type { ReplayReport } from '../../replay/report.js';

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
  const ratioArg = values['kv-load-ratio'];
  const spec = replaySpecFromConfig(config, {
    candidate: values.candidate !== undefined ? (readCandidate(values.candidate) as FlatCandidateInput) : undefined,
    seed: values.seed === undefined ? 0 : Number(values.seed),
    kvLoadRatio: ratioArg === undefined ? undefined : Number(ratioArg),
    systemsDir: opts.systemsDir,
    source: positionals[0],
  });
  const report = runReplay(spec, opts);
  io.stdout(values.json ? `${JSON.stringify({ metrics: report.metrics, metadata: report.metadata })}\n` : format(report));
  return report.metrics.completed_requests > 0 ? 0 : 1;
}

export const command: Command = { name: 'replay', summary: 'run one replay of a candidate through the simulator', usage, run };
