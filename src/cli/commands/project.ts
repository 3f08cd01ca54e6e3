// `spica project <config> --mode M --backend B --request '<json>'`: what a latent parallel request becomes —
// the legal config the projector picks, plus the `spica_projection` record a trial would carry.
import { parseArgs } from 'node:util';
import type { Command, CommandIo } from '../command.js';
import { InputError } from '../../errors.js';
import { latentSpace, type LatentValue } from '../../parallel/latent.js';
import { projectParallel } from '../../parallel/project.js';
import { canonicalConfig } from '../../parallel/pool.js';
import { isDisagg, type ParallelConfig, type WorkerGroup } from '../../parallel/shape.js';
import { PLAN_OPTIONS, loadParallelPlan } from './configs.js';

const usage = `Usage: spica project <config.yaml> --mode agg|disagg --backend B --request '<json>' [--json]

Project latent parallel features onto a legal config of the branch's pool, exactly as a sweep trial
does: backend filter, fewest attention/FFN mode mismatches, smallest normalized distance, then a
lexicographic tie-break.

--request is a JSON object with any subset of the branch's feature names (missing ones take their
defaults; constants may be given too), e.g. '{"used_gpu_ratio":0.5,"agg_num_gpus_per_engine_target":4}'.
  agg:    used_gpu_ratio, agg_num_gpus_per_engine_target, agg_attention_mode (tp|dp), agg_ffn_mode (ep|tp)
  disagg: used_gpu_ratio, prefill_gpu_share, {prefill,decode}_num_gpus_per_engine_target,
          {prefill,decode}_attention_mode (tp|dp), {prefill,decode}_ffn_mode (ep|tp)

Options:
  --mode M               deployment_mode branch (optional when the config lists one mode)
  --backend B            backend the trial selected (optional when the branch has one backend)
  --request JSON         latent request (default: {} — every feature at its default)
  --json                 {"parallel_config":…,"spica_projection":{…}} on stdout
  --systems-dir DIR      directory of <hardware_sku>.yaml system files
  --coefficients-dir DIR directory of fitted perf-model coefficients (<sku>/<backend>.json)
`;

function parseRequest(text: string | undefined): Record<string, LatentValue> {
  if (text === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new InputError(`--request is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InputError('--request must be a JSON object of feature names to values');
  }
  return parsed as Record<string, LatentValue>;
}

function groupText(g: WorkerGroup): string {
  return `${g.replicas} × {tp: ${g.tp}, pp: ${g.pp}, attention_dp: ${g.attention_dp}, moe_tp: ${g.moe_tp}, moe_ep: ${g.moe_ep}}`;
}

function configText(c: ParallelConfig): string {
  return isDisagg(c) ? `prefill ${groupText(c.prefill)}\n                 decode  ${groupText(c.decode)}` : groupText(c);
}

const show = (v: LatentValue | undefined): string => (typeof v === 'number' ? String(Number(v.toFixed(6))) : String(v ?? '—'));

async function run(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...PLAN_OPTIONS, request: { type: 'string' } },
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new InputError(`expected exactly one config file, got ${positionals.length}\n\n${usage}`);
  const request = parseRequest(values.request);
  const { config, plan, backend } = loadParallelPlan({
    path: positionals[0],
    mode: values.mode,
    backend: values.backend,
    systemsDir: values['systems-dir'],
    coefficientsDir: values['coefficients-dir'],
  });
  if (values.mode === undefined && config.search_space.deployment_mode.length !== 1) {
    throw new InputError(`--mode is required: the config lists deployment_mode [${config.search_space.deployment_mode.join(', ')}]`);
  }
  for (const w of plan.warnings) io.stderr(`warning: ${w}\n`);
  const branch = plan.branches[0];
  const chosen = backend ?? (branch.backends.length === 1 ? branch.backends[0] : undefined);
  if (chosen === undefined) {
    throw new InputError(`--backend is required: the ${branch.mode} branch has backends ${branch.backends.join(', ')}`);
  }
  const p = projectParallel(branch, branch.mode, chosen, request);
  if (values.json) {
    const parallel_config = canonicalConfig(p.parallel_config);
    io.stdout(`${JSON.stringify({ parallel_config, spica_projection: { ...p, parallel_config } }, null, 2)}\n`);
    return 0;
  }
  const space = latentSpace(branch, branch.mode);
  const searched = new Set(space.features.map((f) => f.name));
  const names = Object.keys(p.requested);
  const width = Math.max(...names.map((n) => n.length), 7);
  const lines = [
    `${branch.mode} / ${chosen}: pool of ${branch.members.length} config${branch.members.length === 1 ? '' : 's'}`,
    `${'feature'.padEnd(width)}  ${'requested'.padEnd(10)}  actual`,
    ...names.map((n) => `${n.padEnd(width)}  ${show(p.requested[n]).padEnd(10)}  ${show(p.actual[n])}${searched.has(n) ? '' : '  (constant)'}`),
    `distance         ${show(p.distance)}`,
    `mode_projected   ${p.mode_projected}`,
    `parallel_config  ${configText(p.parallel_config)}`,
    '',
  ];
  io.stdout(lines.join('\n'));
  return 0;
}

export const command: Command = { name: 'project', summary: 'project latent parallel features onto a legal config', usage, run };
