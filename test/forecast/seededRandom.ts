// Test-local deterministic randomness (mulberry32 + Box–Muller).
import { mulberry32 } from '../support/mulberry32.js';

export { mulberry32 };

export function gaussianSource(seed: number): () => number {
  const rand = mulberry32(seed);
  return () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/** Mean absolute one-step-ahead error of a predict-then-observe loop, scored from index `from`. */
export function oneStepMae(f: { predict(): number; observe(x: number): void }, ys: readonly number[], from: number, to = ys.length): number {
  let sum = 0;
  for (let i = 0; i < ys.length; i++) {
    if (i >= from && i < to) sum += Math.abs(f.predict() - ys[i]);
    f.observe(ys[i]);
  }
  return sum / (to - from);
}
