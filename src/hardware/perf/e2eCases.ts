// Aggregated-serving rows of the perf DB's end-to-end ground truth (e2e/silicon_dev.csv) turned into
// steady-state estimate inputs: used by calibration (backend overheads), the accuracy test and bench.
import { join } from 'node:path';
import type { Backend, KvCacheDtype, ModelArch, WeightQuant } from '../../model/arch.js';
import { checkpointScaling } from '../../model/checkpoint-scaling.js';
import { findCatalogModel } from '../../model/catalog.js';
import type { ParallelShape } from '../../parallel/shape.js';
import { readCsv, type CsvRow } from './perfdbTables.js';

export interface E2eCase {
  id: string;
  sku: string;
  backend: Backend;
  model: ModelArch;
  shape: ParallelShape;
  quant: WeightQuant;
  moeQuant: WeightQuant;
  kvDtype: KvCacheDtype;
  isl: number;
  osl: number;
  /** Closed-loop benchmark concurrency of the worker (all attention-DP ranks together). */
  batch: number;
  ttftMs: number;
  tpotMs: number;
}

/**
 * The quantization a row's label means for a checkpoint published as `checkpoint` (also the answer
 * for an empty label). Undefined for labels Spica does not model (int4_wo, …). A coarse 'fp8' label
 * on a block-scaled checkpoint means its block-scaled kernels, a coarse 'nvfp4' label on an MXFP4
 * checkpoint (gpt-oss) its MXFP4 kernels (`checkpointScaling`).
 */
export function quantOf(mode: string, precision: string, checkpoint: WeightQuant): WeightQuant | undefined {
  let q: WeightQuant | undefined;
  if (mode === '') q = precision === 'bf16' ? 'bf16' : checkpoint;
  else if (mode === 'fp8' || mode === 'fp8_block' || mode === 'nvfp4' || mode === 'mxfp4') q = mode;
  else if (mode === 'bfloat16' || mode === 'bf16') q = 'bf16';
  return checkpointScaling(q, checkpoint);
}

/** `silicon_concurrency=<n>` from a row's provenance column, if recorded. */
export function measuredConcurrency(source: string): number | undefined {
  const m = /silicon_concurrency=(\d+)/.exec(source);
  return m ? Number(m[1]) : undefined;
}

/**
 * An agg row's benchmark concurrency: the measured one when the provenance records it, else
 * `batch_size` per attention-DP rank × ranks (37 of the 38 attention-DP rows that record both agree).
 */
export function aggConcurrency(source: string, batchSize: number, attentionDp: number): number {
  return measuredConcurrency(source) ?? batchSize * attentionDp;
}

/**
 * The parallel label a row's benchmark config is named by (`…_tp4_epnone_…`, `…_tp8_0_ep8_…`): the tp
 * it was launched with and its expert parallelism ('none' = no EP flag). Undefined when the id has none
 * (the db-dump `cfgNNN` rows).
 */
export interface ParallelLabel {
  tp: number;
  ep: number | 'none';
}

export function parallelLabelOf(id: string): ParallelLabel | undefined {
  const m = /_tp(\d+)(?:_\d+)?_ep(none|\d+)(?:_|$)/.exec(id);
  if (!m) return undefined;
  return { tp: Number(m[1]), ep: m[2] === 'none' ? 'none' : Number(m[2]) };
}

/**
 * The deployment a row measured. Two families of rows carry the GPU count squared (found by the same
 * measurement — identical TTFT and TPOT — appearing under both encodings):
 * * `…_tpN_epN_…` rows of SGLang / TRT-LLM (and the db-dump configs they duplicate) carry moe_tp = N,
 *   moe_ep = N and tp·dp = N² (64 for tp8_ep8); their twins `…_tpN_0_epN_…` read tp N (or attention
 *   DP N), moe_tp 1, moe_ep N: an N-GPU engine with EP over its experts.
 * * `…_tpN_epN_…` rows of vLLM carry tp N, attention DP N, moe_ep N²; their twins `…_tpN_0_epN_…`
 *   (other runs of the same setting: TPOT within 1 %, TTFT within 4 %) read tp N, moe_ep N.
 * A row labelled `…_tpN_epnone_…` launched N GPUs without EP: its columns are the engine as written,
 * even when moe_tp × moe_ep = tp looks like the squared form (tp 4, moe_tp 2, moe_ep 2 is a 4-GPU engine,
 * not a 2-GPU one). The squared reading applies only where the label does not contradict it.
 */
export function deployedShape(s: ParallelShape, label?: ParallelLabel): ParallelShape {
  if (label?.ep === 'none') return s;
  const { tp, attention_dp: dp, moe_tp: mt, moe_ep: me } = s;
  if (me > 1 && mt === me && tp * dp === mt * me) {
    return dp > 1 ? { ...s, tp: 1, attention_dp: me, moe_tp: 1, moe_ep: me } : { ...s, tp: me, attention_dp: 1, moe_tp: 1, moe_ep: me };
  }
  if (dp > 1 && tp === dp && mt === 1 && me === tp * dp) return { ...s, attention_dp: 1, moe_ep: tp };
  return s;
}

/** A size column of a row: empty or non-positive means "not used" (1). */
export function sizeColumn(r: CsvRow, k: string, d = 1): number {
  const v = Number(r[k]);
  return r[k] && Number.isFinite(v) && v > 0 ? v : d;
}

/** The parallel columns of a row as written (prefix '' for agg rows, 'prefill_' / 'decode_' for disagg pools). */
export function parallelColumns(r: CsvRow, prefix = ''): ParallelShape {
  const n = (k: string): number => sizeColumn(r, `${prefix}${k}`);
  return { tp: n('tp_size'), pp: n('pp_size'), attention_dp: n('attention_dp_size'), moe_tp: n('moe_tp_size'), moe_ep: n('moe_ep_size') };
}

/** The engine shape an agg row measured: its parallel columns, read through `deployedShape` with its label. */
export function measuredAggShape(r: CsvRow): ParallelShape {
  return deployedShape(parallelColumns(r), parallelLabelOf(r.id ?? ''));
}

export interface E2eLoad {
  cases: E2eCase[];
  /** Rows skipped and why (unknown model, unsupported quantization). */
  skipped: Map<string, number>;
}

/** Agg rows whose model is in the catalog and whose quantization Spica models. */
export function loadE2eCases(perfdb: string, hasFp4: (sku: string) => boolean = () => true): E2eLoad {
  const cases: E2eCase[] = [];
  const skipped = new Map<string, number>();
  const skip = (why: string): void => void skipped.set(why, (skipped.get(why) ?? 0) + 1);
  for (const r of readCsv(join(perfdb, 'e2e', 'silicon_dev.csv'))) {
    if (r.mode !== 'agg') continue;
    const model = findCatalogModel(r.model_path);
    if (!model) { skip(`unknown model ${r.model_path}`); continue; }
    const quant = quantOf(r.gemm_quant_mode, r.precision, model.weightQuant);
    const moeQuant = quantOf(r.moe_quant_mode, r.precision, quant ?? model.weightQuant);
    if (!quant || !moeQuant) { skip(`quant ${r.gemm_quant_mode}/${r.moe_quant_mode}`); continue; }
    if ((quant === 'nvfp4' || moeQuant === 'nvfp4') && !hasFp4(r.system)) { skip(`${r.gemm_quant_mode} on ${r.system} without FP4 tensor cores`); continue; }
    const backend = r.backend as Backend;
    if (backend !== 'vllm' && backend !== 'sglang' && backend !== 'trtllm') { skip(`backend ${r.backend}`); continue; }
    const num = (k: string): number => sizeColumn(r, k);
    const shape = measuredAggShape(r);
    cases.push({
      id: r.id,
      sku: r.system,
      backend,
      model,
      shape,
      quant,
      moeQuant,
      kvDtype: model.kvCacheDtype,
      isl: num('isl'),
      osl: num('osl'),
      batch: aggConcurrency(r.silicon_data_source ?? '', num('batch_size'), shape.attention_dp),
      ttftMs: Number(r.silicon_ttft_ms),
      tpotMs: Number(r.silicon_tpot_ms),
    });
  }
  return { cases, skipped };
}
