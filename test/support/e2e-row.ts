// One measured agg row as the perf database writes it (Llama-3.1-8B, H100, vLLM, tp1, c=8, 1024/64),
// parsed the way the accuracy harness reads rows: the fixture tests use to check that a path reads the
// same figures as the harness for a row's config.
import { parseE2eRow, type E2eRow } from '../../src/calibration/rows.js';

export function llama8bH100Row(id: string): E2eRow {
  const row = parseE2eRow(
    {
      id, silicon_data_source: 'silicon_concurrency=8', backend: 'vllm', model_path: 'meta-llama/Llama-3.1-8B-Instruct', system: 'h100_sxm',
      precision: 'bf16', mode: 'agg', isl: '1024', osl: '64', gemm_quant_mode: '', moe_quant_mode: '', batch_size: '8', tp_size: '1', pp_size: '1',
      attention_dp_size: '1', silicon_ttft_ms: '100', silicon_tpot_ms: '10',
    },
    () => true,
  );
  if (typeof row === 'string') throw new Error(row);
  return row;
}
