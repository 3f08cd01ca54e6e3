// Synthetic objectives with known optima shared by the optimizer tests.
import type { Dimension, Point } from '../../../src/search/optimizer/index.js';

/** categorical + log-discrete + two continuous (one log-scale): 4 × 9 × ∞ × ∞. */
export const MIXED_SPACE: Dimension[] = [
  { name: 'backend', kind: 'categorical', values: ['vllm', 'sglang', 'trtllm', 'mock'] },
  { name: 'seqs', kind: 'discrete', values: [1, 2, 4, 8, 16, 32, 64, 128, 256], log_scale: true },
  { name: 'ratio', kind: 'continuous', values: [0, 1] },
  { name: 'scale', kind: 'continuous', values: [0.25, 32], log_scale: true },
];

const BACKEND_BONUS: Record<string, number> = { vllm: 0.3, sglang: 1, trtllm: 0.5, mock: 0 };

/** Maximum 3 at backend=sglang, seqs=16, ratio=0.73, scale=4. */
export function mixedObjective(p: Point): number {
  const s = Math.log2(p.seqs as number) - 4;
  const r = (p.ratio as number) - 0.73;
  const c = Math.log2(p.scale as number) - 2;
  return BACKEND_BONUS[p.backend as string] + Math.exp(-(s * s) / 4) + Math.exp(-(r * r) / 0.02) - 0.05 * c * c;
}
export const MIXED_OPTIMUM = 3;
