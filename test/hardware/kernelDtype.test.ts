import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { kernelDtypes } from '../../src/hardware/perf/kernelDtype.js';

describe('kernel dtype of a weight layout on a SKU', () => {
  it('runs MXFP4 experts as weight-only w4a16 on GPUs without FP4 tensor cores, GEMMs in bf16', () => {
    expect(kernelDtypes({ linear: 'bf16', moe: 'mxfp4' }, 'h100_sxm', false)).toEqual({ gemm: 'bfloat16', moe: 'w4a16_mxfp4' });
    // An explicit mxfp4 on linear layers still means bf16 GEMMs (MXFP4 is an expert format).
    expect(kernelDtypes({ linear: 'mxfp4', moe: 'mxfp4' }, 'h200_sxm', false).gemm).toBe('bfloat16');
  });

  it('runs MXFP4 experts on the FP4 tensor-core kernels where the GPU has them', () => {
    expect(kernelDtypes({ linear: 'bf16', moe: 'mxfp4' }, 'b200_sxm', true)).toEqual({ gemm: 'bfloat16', moe: 'nvfp4' });
  });

  it('maps the other formats one to one and refuses NVFP4 without FP4 tensor cores', () => {
    expect(kernelDtypes({ linear: 'fp8_block', moe: 'fp8_block' }, 'h100_sxm', false)).toEqual({ gemm: 'fp8_block', moe: 'fp8_block' });
    expect(kernelDtypes({ linear: 'nvfp4', moe: 'nvfp4' }, 'b200_sxm', true)).toEqual({ gemm: 'nvfp4', moe: 'nvfp4' });
    expect(() => kernelDtypes({ linear: 'nvfp4', moe: 'nvfp4' }, 'h100_sxm', false)).toThrow(InputError);
    expect(() => kernelDtypes({ linear: 'bf16', moe: 'nvfp4' }, 'h100_sxm', false)).toThrow(/needs FP4 tensor cores; 'h100_sxm' has none/);
  });
});
