// Measured deployments of the perf DB's end-to-end ground truth (e2e/silicon_dev.csv), agg and disagg,
// as the replay accuracy check needs them. The one I/O function here is the CSV loader.
//
// Reading of the batch columns (checked against `silicon_concurrency=` in `silicon_data_source`):
// * agg: the benchmark concurrency equals `batch_size` when attention_dp is 1 and
//   `batch_size × attention_dp_size` otherwise (37 of the 38 attention-DP rows) — `batch_size` is per
//   attention-DP rank, as in AIC.
// * disagg: `decode_batch_size` is per decode attention-DP rank, so concurrency =
//   decode_batch_size × decode_num_workers × decode_attention_dp_size (every row that has the columns);
//   `prefill_batch_size` is the prompts one prefill rank batches per pass (AIC's static_ctx batch, 1 in
//   all rows). Disagg rows without worker counts (most of the newer dumps) cannot be replayed faithfully
//   and are skipped.
// The measured `silicon_concurrency` wins when present; the batch columns are the fallback.
import { join } from 'node:path';
import type { Backend, ModelArch, WeightQuant } from '../model/arch.js';
import { findCatalogModel } from '../model/catalog.js';
import { aggConcurrency, measuredAggShape, measuredConcurrency, parallelColumns, quantOf, sizeColumn } from '../hardware/perf/e2eCases.js';
import { readCsv, type CsvRow } from '../hardware/perf/perfdbTables.js';

/** Parallel shape of one worker group of a row (replicas = worker count). */
export interface RowGroup {
  tp: number;
  pp: number;
  attention_dp: number;
  moe_tp: number;
  moe_ep: number;
  replicas: number;
}

interface RowBase {
  id: string;
  sku: string;
  backend: Backend;
  model: ModelArch;
  quant: WeightQuant;
  moeQuant: WeightQuant;
  isl: number;
  osl: number;
  /** Closed-loop benchmark concurrency (all workers together). */
  concurrency: number;
  ttftMs: number;
  tpotMs: number;
  /** Engine version the row records (`backend_version`; '' when absent). */
  backendVersion: string;
}

export interface AggRow extends RowBase {
  mode: 'agg';
  group: RowGroup;
}

export interface DisaggRow extends RowBase {
  mode: 'disagg';
  prefill: RowGroup;
  decode: RowGroup;
  /** Prompts per prefill rank per pass. */
  prefillBatch: number;
  /** Requests per decode rank. */
  decodeBatch: number;
}

export type E2eRow = AggRow | DisaggRow;

export interface E2eRowLoad {
  rows: E2eRow[];
  /** Rows skipped and why. */
  skipped: Map<string, number>;
}

const BACKENDS: readonly string[] = ['vllm', 'sglang', 'trtllm'];

const num = sizeColumn;

/** One CSV row → an E2eRow, or the reason it cannot be replayed. Pure. */
export function parseE2eRow(r: CsvRow, hasFp4: (sku: string) => boolean): E2eRow | string {
  if (r.mode !== 'agg' && r.mode !== 'disagg') return `mode ${r.mode}`;
  const model = findCatalogModel(r.model_path);
  if (!model) return `unknown model ${r.model_path}`;
  const quant = quantOf(r.gemm_quant_mode, r.precision, model.weightQuant);
  const moeQuant = quantOf(r.moe_quant_mode, r.precision, quant ?? model.weightQuant);
  if (!quant || !moeQuant) return `quant ${r.gemm_quant_mode}/${r.moe_quant_mode}`;
  if ((quant === 'nvfp4' || moeQuant === 'nvfp4') && !hasFp4(r.system)) return `${r.gemm_quant_mode} on ${r.system} without FP4 tensor cores`;
  if (!BACKENDS.includes(r.backend)) return `backend ${r.backend}`;
  const ttftMs = Number(r.silicon_ttft_ms);
  const tpotMs = Number(r.silicon_tpot_ms);
  if (!(ttftMs > 0 && tpotMs > 0)) return 'no measured TTFT/TPOT';
  const base = { id: r.id, sku: r.system, backend: r.backend as Backend, model, quant, moeQuant, isl: num(r, 'isl'), osl: num(r, 'osl'), ttftMs, tpotMs, backendVersion: r.backend_version ?? '' };
  const measured = measuredConcurrency(r.silicon_data_source ?? '');
  if (r.mode === 'agg') {
    const g = { ...measuredAggShape(r), replicas: 1 };
    return { ...base, mode: 'agg', group: g, concurrency: aggConcurrency(r.silicon_data_source ?? '', num(r, 'batch_size'), g.attention_dp) };
  }
  if (!r.prefill_num_workers || !r.decode_num_workers || !r.decode_batch_size) return 'disagg row without worker counts / batch sizes';
  const prefill = { ...parallelColumns(r, 'prefill_'), replicas: num(r, 'prefill_num_workers') };
  const decode = { ...parallelColumns(r, 'decode_'), replicas: num(r, 'decode_num_workers') };
  const decodeBatch = num(r, 'decode_batch_size');
  return { ...base, mode: 'disagg', prefill, decode, prefillBatch: num(r, 'prefill_batch_size'), decodeBatch, concurrency: measured ?? decodeBatch * decode.replicas * decode.attention_dp };
}

/** Every agg and disagg row of e2e/silicon_dev.csv whose model, quantization and backend Spica models. */
export function loadE2eRows(perfdb: string, hasFp4: (sku: string) => boolean = () => true): E2eRowLoad {
  const rows: E2eRow[] = [];
  const skipped = new Map<string, number>();
  for (const r of readCsv(join(perfdb, 'e2e', 'silicon_dev.csv'))) {
    const row = parseE2eRow(r, hasFp4);
    if (typeof row === 'string') skipped.set(row, (skipped.get(row) ?? 0) + 1);
    else rows.push(row);
  }
  return { rows, skipped };
}
