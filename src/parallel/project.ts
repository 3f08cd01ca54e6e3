// Projection of a latent request onto one legal config of the branch pool (seed "Projection onto a valid
// config"): backend filter → fewest mode mismatches → minimum normalized squared distance → lexicographic
// shape-and-replica tie-break. A pure function of (pool, mode, backend, request): never history-dependent.
import type { Backend } from '../model/arch.js';
import { InputError } from '../errors.js';
import { defaultRequest, encodePool, featureDef, requestableNames, type LatentValue } from './latent.js';
import { canonicalConfig, compareConfigs, type ParallelPool } from './pool.js';
import type { DeploymentMode, ParallelConfig } from './shape.js';

/** The `spica_projection` record every trial carries. */
export interface Projection {
  requested: Record<string, LatentValue>;
  actual: Record<string, LatentValue>;
  distance: number;
  mode_projected: boolean;
  parallel_config: ParallelConfig;
}

/** Relative tolerance under which two distances count as a tie (so float noise never picks the winner). */
const TIE_EPS = 1e-12;

function validateRequest(mode: DeploymentMode, request: Record<string, unknown>): void {
  const allowed = requestableNames(mode);
  for (const [name, value] of Object.entries(request)) {
    const def = featureDef(mode, name);
    if (!def) throw new InputError(`unknown ${mode} latent feature '${name}' (known: ${allowed.join(', ')})`);
    if (def.kind === 'categorical') {
      if (typeof value !== 'string' || !(def.order ?? []).includes(value)) {
        throw new InputError(`${name} must be one of ${(def.order ?? []).join(' | ')} (got ${JSON.stringify(value)})`);
      }
    } else if (typeof value !== 'number' || !Number.isFinite(value) || (def.transform === 'log2' && value <= 0)) {
      throw new InputError(`${name} must be a ${def.transform === 'log2' ? 'positive ' : ''}finite number (got ${JSON.stringify(value)})`);
    }
  }
}

const transformed = (v: number, t: 'linear' | 'log2' | undefined): number => (t === 'log2' ? Math.log2(v) : v);

/** Per-(pool, backend) columns, built once: projection is then one linear pass without allocation. */
interface BackendView {
  /** Pool indices legal for the backend, in pool order. */
  idx: number[];
  /** Transformed numeric feature values (log2 for engine sizes), aligned with `idx`. */
  numeric: Map<string, { values: Float64Array; span: number }>;
  /** Categorical feature values, aligned with `idx` ('tp' where a dense pool has no FFN feature). */
  modes: Map<string, LatentValue[]>;
  /**
   * Per requested mode combination (names and values), the positions in `idx` with the fewest mode
   * mismatches, ascending: the only members step 3 can pick (a combination is one of a few).
   */
  fewestMismatches: Map<string, Int32Array>;
}

const viewCache = new WeakMap<ParallelPool, Map<Backend, BackendView>>();

function backendView(pool: ParallelPool, mode: DeploymentMode, backend: Backend): BackendView {
  let perBackend = viewCache.get(pool);
  if (!perBackend) viewCache.set(pool, (perBackend = new Map()));
  const hit = perBackend.get(backend);
  if (hit) return hit;
  const enc = encodePool(pool, mode);
  const idx = pool.members.flatMap((m, i) => (m.backends.includes(backend) ? [i] : []));
  const numeric = new Map<string, { values: Float64Array; span: number }>();
  const modes = new Map<string, LatentValue[]>();
  for (const name of requestableNames(mode)) {
    const def = featureDef(mode, name)!;
    if (def.kind === 'categorical') {
      modes.set(name, idx.map((i) => enc[i][name] ?? 'tp'));
      continue;
    }
    const values = Float64Array.from(idx, (i) => transformed(enc[i][name] as number, def.transform));
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of values) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    numeric.set(name, { values, span: idx.length > 0 ? hi - lo : 0 });
  }
  const view = { idx, numeric, modes, fewestMismatches: new Map<string, Int32Array>() };
  perBackend.set(backend, view);
  return view;
}

/**
 * Projects `request` (any subset of the mode's feature names; missing ones take their defaults) onto the
 * configs of `pool` legal for `backend`. Throws InputError for unknown names, bad values, or a backend
 * with no config in the pool.
 */
export function projectParallel(
  pool: ParallelPool,
  mode: DeploymentMode,
  backend: Backend,
  request: Record<string, LatentValue>,
): Projection {
  validateRequest(mode, request);
  const enc = encodePool(pool, mode);
  const view = backendView(pool, mode, backend);
  if (view.idx.length === 0) {
    throw new InputError(`backend '${backend}' has no legal ${mode} parallel config in this pool`);
  }
  const requested: Record<string, LatentValue> = { ...requestDefaults(pool, mode), ...request };

  // One config: no latent dimension exists, so nothing to project.
  if (pool.members.length === 1) {
    return {
      requested,
      actual: { ...enc[0] },
      distance: 0,
      mode_projected: false,
      parallel_config: canonicalConfig(pool.members[0].config),
    };
  }

  const names = Object.keys(requested);
  // Step 2 inputs: requested modes. A MoE-only mode requested on a dense pool compares against the
  // canonical 'tp' every dense shape encodes to.
  const modeCols = names.filter((n) => view.modes.has(n)).map((n) => ({ col: view.modes.get(n)!, want: requested[n] }));
  // Step 3 inputs: spans come from the selected backend's pool, not the mode survivors; zero span adds 0.
  const numCols = names
    .filter((n) => view.numeric.has(n) && view.numeric.get(n)!.span > 0)
    .map((n) => {
      const { values, span } = view.numeric.get(n)!;
      return { values, span, want: transformed(requested[n] as number, featureDef(mode, n)!.transform) };
    });

  // Step 2: the members with the fewest mode mismatches (memoized per requested combination). Step 3,
  // one pass over them in pool order: smallest distance, then the smallest lexicographic key (compared
  // explicitly, so the result does not depend on member order).
  let modeKey = '';
  for (const n of names) if (view.modes.has(n)) modeKey += `${n}\u0001${String(requested[n])}\u0002`;
  let survivors = view.fewestMismatches.get(modeKey);
  if (!survivors) {
    survivors = fewestMismatches(view.idx.length, modeCols);
    view.fewestMismatches.set(modeKey, survivors);
  }
  const bestMis = modeCols.reduce((n, m) => n + (m.col[survivors![0]] !== m.want ? 1 : 0), 0);
  let best = -1;
  let bestD = Infinity;
  for (let s = 0; s < survivors.length; s++) {
    const k = survivors[s];
    let d = 0;
    for (const c of numCols) {
      const delta = (c.values[k] - c.want) / c.span;
      d += delta * delta;
    }
    let take = best < 0;
    if (!take) {
      const tie = Math.abs(d - bestD) <= TIE_EPS * Math.max(1, bestD);
      take = tie ? compareConfigs(pool.members[view.idx[k]].config, pool.members[view.idx[best]].config) < 0 : d < bestD;
    }
    if (take) {
      best = k;
      bestD = d;
    }
  }
  const chosen = view.idx[best];
  return {
    requested,
    actual: { ...enc[chosen] },
    distance: bestD,
    mode_projected: bestMis > 0,
    parallel_config: canonicalConfig(pool.members[chosen].config),
  };
}

/** Positions 0..size−1 whose mode columns mismatch the wanted values least, ascending. */
function fewestMismatches(size: number, modeCols: readonly { col: readonly LatentValue[]; want: LatentValue }[]): Int32Array {
  const mis = new Int32Array(size);
  let fewest = Infinity;
  for (let k = 0; k < size; k++) {
    for (const m of modeCols) if (m.col[k] !== m.want) mis[k]++;
    if (mis[k] < fewest) fewest = mis[k];
  }
  const out: number[] = [];
  for (let k = 0; k < size; k++) if (mis[k] === fewest) out.push(k);
  return Int32Array.from(out);
}

const defaultsCache = new WeakMap<ParallelPool, Record<string, LatentValue>>();

/** `defaultRequest` memoized per pool (a pool has one mode); never mutated. */
function requestDefaults(pool: ParallelPool, mode: DeploymentMode): Readonly<Record<string, LatentValue>> {
  let d = defaultsCache.get(pool);
  if (!d) {
    d = defaultRequest(pool, mode);
    defaultsCache.set(pool, d);
  }
  return d;
}
