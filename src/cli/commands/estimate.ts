// `spica estimate`: memory, pass times and closed-loop latency of one model / SKU / backend / shape.
// Memory and pass times come from the memory estimator and the calibrated pass model; ttft_ms /
// tpot_ms from the calibrated replay of the closed loop (replay/closed-loop-config.ts: the config a
// user writes for that benchmark, replayed as `spica replay` does) — the same fitted overheads (pass
// scale, prefill factor, frontend latency) and the same path as the accuracy figures. Where that
// replay cannot run (e.g. no KV room for the batch) they fall back to the steady-state formula
// (hardware/perf/steadyState.ts), and `latency_source` says so.
import { parseArgs } from 'node:util';
import type { Command, CommandIo } from '../command.js';
import { InputError } from '../../errors.js';
import { BACKENDS, KV_CACHE_DTYPES, WEIGHT_QUANTS, type Backend, type KvCacheDtype, type WeightQuant } from '../../model/arch.js';
import { resolveModel } from '../../model/catalog.js';
import { checkpointScaling } from '../../model/checkpoint-scaling.js';
import { defaultKvCacheDtype } from '../../model/kv-cache.js';
import { loadSystem } from '../../hardware/systems.js';
import { estimateSteadyState, type SteadyStateEstimate } from '../../hardware/perf/steadyState.js';
import type { ParallelShape } from '../../parallel/shape.js';
import { configFromObject } from '../../config/load.js';
import { closedLoopConfig } from '../../replay/closed-loop-config.js';
import { replaySpecFromConfig } from '../../replay/from-config.js';
import { runReplay } from '../../replay/resolve.js';

const USAGE = `Usage: spica estimate --model M --sku S --tp N [options]

Memory and steady-state latency of one deployment (one worker).

Options:
  --model M          catalog model id / alias, or path to a Hugging Face config.json
  --sku S            hardware SKU (systems/<sku>.yaml)
  --backend B        vllm | sglang | trtllm (default vllm)
  --quant Q          bf16 | fp8 | fp8_block | nvfp4 | mxfp4 (default: the checkpoint's own); fp8 on a
                     block-scaled checkpoint = fp8_block, nvfp4 on an MXFP4 checkpoint (gpt-oss) = mxfp4.
                     mxfp4 = MXFP4 routed experts, bf16 attention/dense; on GPUs without FP4 tensor
                     cores (Hopper) its experts run weight-only w4a16 kernels; nvfp4 needs FP4 cores
  --kv-dtype D       bf16 | fp8 (default: the engine's for the checkpoint — fp8 on TRT-LLM at per-tensor
                     fp8 / nvfp4, the ModelOpt checkpoints' FP8 KV cache; else the checkpoint's own)
  --tp N             tensor parallel size (required)
  --pp N             pipeline stages (default 1)
  --attention-dp N   attention data-parallel ranks (default 1)
  --moe-tp N         expert tensor parallel (default tp·attention_dp / moe_ep)
  --moe-ep N         expert parallel (default 1)
  --isl N            input tokens per request (default 1024)
  --osl N            output tokens per request (default 1024)
  --batch N          closed-loop concurrency of the worker (default 1)
  --json             one flat JSON object instead of the table

Figures: weights_bytes_per_gpu, kv_bytes_per_token (whole model), kv_capacity_tokens_per_rank,
max_concurrency at isl+osl, prefill_ms (one pass of batch × isl), decode_step_ms (batch at context
isl + osl/2), and ttft_ms / tpot_ms: mean TTFT / TPOT of a closed loop at concurrency = batch
(num_request_ratio 10, the backend's default engine), replayed with the calibrated simulator as
\`spica replay\` replays that config — the path \`npm run bench accuracy\` measures. Where the replay
cannot run (or batch exceeds max_concurrency) they are the steady-state formula's (src/hardware/perf/steadyState.ts); latency_source
says which (steady_state_ttft_ms / steady_state_tpot_ms are always that formula's).
`;

function positiveInt(name: string, raw: string | undefined, dflt?: number): number {
  if (raw === undefined) {
    if (dflt === undefined) throw new InputError(`--${name} is required`);
    return dflt;
  }
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 1) throw new InputError(`--${name} must be a positive integer (got '${raw}')`);
  return v;
}

function oneOf<T extends string>(name: string, raw: string | undefined, allowed: readonly T[]): T | undefined {
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw)) throw new InputError(`--${name} must be one of ${allowed.join(', ')} (got '${raw}')`);
  return raw as T;
}

function formatTable(rows: [string, string][]): string {
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n') + '\n';
}

const fmtMs = (x: number): string => x.toFixed(3);

async function run(argv: string[], io: CommandIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      model: { type: 'string' },
      sku: { type: 'string' },
      backend: { type: 'string' },
      quant: { type: 'string' },
      'kv-dtype': { type: 'string' },
      tp: { type: 'string' },
      pp: { type: 'string' },
      'attention-dp': { type: 'string' },
      'moe-tp': { type: 'string' },
      'moe-ep': { type: 'string' },
      isl: { type: 'string' },
      osl: { type: 'string' },
      batch: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (!values.model) throw new InputError('--model is required');
  if (!values.sku) throw new InputError('--sku is required');
  const model = resolveModel(values.model);
  const system = loadSystem(values.sku);
  const backend: Backend = oneOf('backend', values.backend, BACKENDS) ?? 'vllm';
  // A coarse --quant fp8 on a block-scaled checkpoint is served by its block-scaled kernels, nvfp4 on
  // an MXFP4 checkpoint by its MXFP4 kernels.
  const quant: WeightQuant = checkpointScaling(oneOf('quant', values.quant, WEIGHT_QUANTS) ?? model.weightQuant, model.weightQuant);
  const kvDtype: KvCacheDtype = oneOf('kv-dtype', values['kv-dtype'], KV_CACHE_DTYPES) ?? defaultKvCacheDtype(model, backend, quant);
  const tp = positiveInt('tp', values.tp);
  const dp = positiveInt('attention-dp', values['attention-dp'], 1);
  const moeEp = positiveInt('moe-ep', values['moe-ep'], 1);
  const moeTp = positiveInt('moe-tp', values['moe-tp'], Math.max(1, Math.floor((tp * dp) / moeEp)));
  if (model.numExperts > 0 && moeTp * moeEp !== tp * dp) {
    throw new InputError(`moe_tp × moe_ep (${moeTp} × ${moeEp}) must equal tp × attention_dp (${tp} × ${dp}) for MoE model ${model.id}`);
  }
  const shape: ParallelShape = { tp, pp: positiveInt('pp', values.pp, 1), attention_dp: dp, moe_tp: moeTp, moe_ep: moeEp };
  const isl = positiveInt('isl', values.isl, 1024);
  const osl = positiveInt('osl', values.osl, 1024);
  const batch = positiveInt('batch', values.batch, 1);

  const est: SteadyStateEstimate = estimateSteadyState({ model, system, backend, shape, quant, kvDtype, isl, osl, batch });
  const steady = { steady_state_ttft_ms: est.ttft_ms, steady_state_tpot_ms: est.tpot_ms };
  let latencySource = 'replay';
  let fallbackReason = '';
  try {
    // A batch the KV cache cannot hold would only queue (and a huge one replay for long): formula.
    if (batch > est.max_concurrency) throw new Error(`batch ${batch} exceeds max_concurrency ${est.max_concurrency}`);
    const doc = closedLoopConfig({ model: values.model, sku: system.sku, backend, quant, kvDtype, group: { ...shape, replicas: 1 }, isl, osl, concurrency: batch }, system.memCapacityBytes);
    const m = runReplay(replaySpecFromConfig(configFromObject(doc, { sourceName: 'spica estimate' }), { source: 'spica estimate' })).metrics;
    if (!(m.mean_ttft_ms > 0 && m.mean_tpot_ms > 0)) throw new Error(`no TTFT/TPOT (completed ${m.completed_requests} of ${m.issued_requests} requests)`);
    est.ttft_ms = m.mean_ttft_ms;
    est.tpot_ms = m.mean_tpot_ms;
  } catch (e) {
    latencySource = 'steady_state';
    fallbackReason = (e as Error).message.split('\n')[0];
  }

  if (values.json) {
    const out = {
      model: model.id,
      sku: system.sku,
      backend,
      quant,
      kv_dtype: kvDtype,
      ...shape,
      isl,
      osl,
      batch,
      ...est,
      ...steady,
      latency_source: latencySource,
    };
    io.stdout(`${JSON.stringify(out)}\n`);
    return 0;
  }
  const gib = (b: number): string => `${b} (${(b / 2 ** 30).toFixed(2)} GiB)`;
  io.stdout(
    formatTable([
      ['model', model.id],
      ['sku / backend', `${system.sku} / ${backend}`],
      ['quant / kv_dtype', `${quant} / ${kvDtype}`],
      ['shape', `tp ${tp}  pp ${shape.pp}  attention_dp ${dp}  moe_tp ${moeTp}  moe_ep ${moeEp}`],
      ['isl / osl / batch', `${isl} / ${osl} / ${batch}`],
      ['weights_bytes_per_gpu', gib(est.weights_bytes_per_gpu)],
      ['kv_bytes_per_token', String(est.kv_bytes_per_token)],
      ['kv_capacity_tokens_per_rank', String(est.kv_capacity_tokens_per_rank)],
      ['max_concurrency', String(est.max_concurrency)],
      ['prefill_ms', fmtMs(est.prefill_ms)],
      ['decode_step_ms', fmtMs(est.decode_step_ms)],
      ['ttft_ms', fmtMs(est.ttft_ms)],
      ['tpot_ms', fmtMs(est.tpot_ms)],
      ['steady_state_ttft_ms', fmtMs(steady.steady_state_ttft_ms)],
      ['steady_state_tpot_ms', fmtMs(steady.steady_state_tpot_ms)],
    ]) +
      (latencySource === 'replay'
        ? 'note: ttft_ms / tpot_ms from the calibrated replay of the closed loop (as `spica replay`); steady_state_* from the formula\n'
        : `note: the closed-loop replay could not run (${fallbackReason}): ttft_ms / tpot_ms are the steady-state formula's\n`),
  );
  return 0;
}

export const command: Command = {
  name: 'estimate',
  summary: 'memory and steady-state latency of one model/SKU/shape',
  usage: USAGE,
  run,
};
