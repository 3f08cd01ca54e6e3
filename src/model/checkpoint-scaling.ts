// Which kernels a checkpoint is served with. A checkpoint published with 128×128 block scales
// (DeepSeek-R1, Qwen3-235B-A22B-FP8, MiniMax-M2.5) runs the block-scaled GEMM/MoE kernels whatever
// coarse label a user or a benchmark row gives ('fp8'); per-tensor FP8 kernels (another perf-DB table,
// with far slower MoE on Hopper vLLM) never run on it. Likewise an MXFP4 checkpoint (gpt-oss) labelled
// with the coarse 'nvfp4' / "fp4" runs its own MXFP4 expert kernels: there is no NVFP4 tensor to feed
// an NVFP4 kernel. Every place that turns a user-given quantization into the perf model's
// quantization applies this rule.
import type { WeightQuant } from './arch.js';

/** The quantization `requested` means on a checkpoint published as `checkpoint`. */
export function checkpointScaling<Q extends WeightQuant | undefined>(requested: Q, checkpoint: WeightQuant): Q | 'fp8_block' | 'mxfp4' {
  if (requested === 'fp8' && checkpoint === 'fp8_block') return 'fp8_block';
  if (requested === 'nvfp4' && checkpoint === 'mxfp4') return 'mxfp4';
  return requested;
}
