// Which perf-DB kernel family serves a weight format on a GPU. The checkpoint format (WeightQuant) is
// a storage fact; the kernel is a hardware fact: MXFP4 experts on a GPU without FP4 tensor cores
// (Hopper) run weight-only w4a16 kernels — 4-bit weights dequantised to bf16 in registers, bf16 MMA
// (vLLM/SGLang OAI-triton, TRT-LLM torch-flow) — while NVFP4 has no such path and is refused there.
import { InputError } from '../../errors.js';
import type { WeightQuant } from '../../model/arch.js';
import type { WeightQuants } from '../../model/weights.js';

export interface KernelDtypes {
  /** Attention / dense / shared-expert GEMMs (perf-DB `gemm_dtype`). */
  gemm: string;
  /** Routed experts (perf-DB `moe_dtype`). */
  moe: string;
}

const DENSE_KERNEL: Record<Exclude<WeightQuant, 'mxfp4'>, string> = { bf16: 'bfloat16', fp8: 'fp8', fp8_block: 'fp8_block', nvfp4: 'nvfp4' };

/**
 * MXFP4 experts on FP4 tensor-core GPUs: Blackwell's native block-scaled FP4 MMA (the perf DB's
 * nvfp4 expert kernels are the measured FP4-MMA family; the e2e rows of gpt-oss on b200 are
 * labelled nvfp4 and fitted that way). Without FP4 tensor cores: the weight-only w4a16 family.
 */
function mxfp4MoeKernel(hasFp4: boolean): string {
  return hasFp4 ? 'nvfp4' : 'w4a16_mxfp4';
}

/** Kernel dtypes of a weight layout (`weightLayout`) on a SKU with or without FP4 tensor cores. */
export function kernelDtypes(layout: WeightQuants, sku: string, hasFp4: boolean): KernelDtypes {
  if (!hasFp4 && (layout.linear === 'nvfp4' || layout.moe === 'nvfp4')) {
    throw new InputError(`quantization nvfp4 needs FP4 tensor cores; '${sku}' has none (use fp8, fp8_block or bf16; MXFP4 checkpoints such as gpt-oss run weight-only w4a16 kernels there)`);
  }
  // weightLayout never puts mxfp4 on linear layers; guard explicit WeightQuants the same way.
  const gemm = layout.linear === 'mxfp4' ? 'bfloat16' : DENSE_KERNEL[layout.linear];
  const moe = layout.moe === 'mxfp4' ? mxfp4MoeKernel(hasFp4) : DENSE_KERNEL[layout.moe];
  return { gemm, moe };
}
