// `thorough` policy: the complete Cartesian product of a space with only finite dimensions.
import { InputError } from '../../errors.js';
import { validateSpace, type Dimension, type Point } from './space.js';

/** Hard cap so a mistyped space fails fast instead of exhausting memory. */
export const MAX_ENUMERATED_POINTS = 5_000_000;

/**
 * Every point, in deterministic order: the first dimension varies slowest, values in declared order
 * (like nested loops over the dimensions as listed). Rejects continuous ranges.
 */
export function enumerateSpace(space: readonly Dimension[]): Point[] {
  validateSpace(space);
  const continuous = space.filter((d) => d.kind === 'continuous');
  if (continuous.length > 0)
    throw new InputError(
      `thorough search cannot enumerate continuous range(s): ${continuous.map((d) => `'${d.name}'`).join(', ')}; ` +
        'list explicit values instead or use policy rapid',
    );
  const total = space.reduce((n, d) => n * d.values.length, 1);
  if (total > MAX_ENUMERATED_POINTS)
    throw new InputError(`thorough search space has ${total} points (limit ${MAX_ENUMERATED_POINTS}); pin some dimensions or use policy rapid`);
  const out: Point[] = [];
  const idx = new Array<number>(space.length).fill(0);
  for (let n = 0; n < total; n++) {
    const p: Point = {};
    space.forEach((d, i) => (p[d.name] = d.values[idx[i]]));
    out.push(p);
    for (let i = space.length - 1; i >= 0; i--) {
      if (++idx[i] < space[i].values.length) break;
      idx[i] = 0;
    }
  }
  return out;
}
