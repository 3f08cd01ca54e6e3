// The fitted coefficients of one (SKU, backend): `systems/coefficients/<sku>/<backend>.json`, written
// by `npm run calibrate`. The zod schema below is the single definition of that file format.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { NoPerfDatabase } from '../../errors.js';
import type { Backend } from '../../model/arch.js';
import { ARCHITECTURE_CLASSES, type ArchitectureClass } from '../../model/architecture-class.js';
import { gridFromJson, type Grid } from './grid.js';

const axisSchema = z.object({ lo: z.number(), step: z.number().positive(), n: z.number().int().positive() });

const errorStatsSchema = z.object({
  rows: z.number().int().nonnegative(),
  /** Absolute relative error of the final fit on every row. */
  median: z.number(),
  p90: z.number(),
  /** Same, for a model fitted without the held-out sweeps (every 5th by key hash), on those sweeps. */
  heldoutRows: z.number().int().nonnegative(),
  heldoutMedian: z.number().nullable(),
  heldoutP90: z.number().nullable(),
});

const curveSchema = z.object({
  axes: z.array(axisSchema).min(1).max(8),
  /** Knot values of log2(utilisation): deflated little-endian int16 × 250, base64. */
  q: z.string(),
  stats: errorStatsSchema,
  /**
   * Fastest measured call of the group (s): the collector's per-call floor (launch, dispatch, fused
   * pre-kernels such as activation quantisation) that every isolated timing pays. Absent: 0.
   */
  floorS: z.number().nonnegative().optional(),
});

/** What the replay adds on top of the pass model (see `overhead.replay`). */
export const replayOverheadSchema = z.object({
  /** Multiplier on every simulated pass time. */
  passScale: z.number().positive(),
  /**
   * Multiplier on the prefill part of every pass (engine.ts `prefillScaledPassMs`: prefill attention
   * plus the prefill tokens' share of the token-parallel ops), before passScale. Prefill passes run
   * eagerly, outside the CUDA graphs of the decode passes TPOT (and so passScale) is fitted on, and
   * their MoE / attention kernels run in other modes than the kernel tables time; the steady-state
   * estimate carries the same factor (`overhead.prefillScale`). Aggregated serving only. Absent: 1.
   */
  prefillScale: z.number().positive().optional(),
  /**
   * The frontend's fixed latency in aggregated serving, ms (src/replay/frontend.ts: HTTP, hand-off to
   * the engine, first-token streaming; tokenisation is modelled apart), added to every request's TTFT.
   */
  admissionMs: z.number().nonnegative(),
  /**
   * Aggregated serving: engine passes a request waits from reaching a busy rank to its first scheduling
   * (rank-scheduler.ts; absent: 0). It makes TTFT (and E2E, not TPOT) grow with the engine's own step
   * time: the measured TTFT exceeds the uncorrected replay's by a roughly constant number of decode
   * steps at every concurrency (SGLang ~25, TRT-LLM MLA-MoE ~16, GQA ~5, vLLM ~4), which a fixed
   * latency cannot follow. Fitted jointly with the other corrections; not an engine setting a user
   * writes (the engines' stream intervals do not cause it: SGLang and TRT-LLM send the first token at once).
   */
  admissionLagPasses: z.number().int().nonnegative().optional(),
  /** The same for disaggregated serving (includes the P/D handshake and routing), ms. */
  disaggAdmissionMs: z.number().nonnegative(),
  /**
   * Disaggregated serving's pass scale (absent: `passScale`). Disaggregated engines run on the kernel
   * tables as timed (`disaggEngineOverhead`), not on the aggregated fit's kernel scale and launch
   * credit, so their scale is fitted on disaggregated rows of their own.
   */
  disaggPassScale: z.number().positive().optional(),
  /**
   * Disaggregated prefill workers' prefill factor (absent: 1): their passes are prefill-only and run
   * eagerly, outside CUDA graphs, like the prefill part `prefillScale` scales in aggregated serving,
   * but on the kernel tables as timed; fitted on disaggregated rows' TTFT.
   */
  disaggPrefillScale: z.number().positive().optional(),
  /**
   * Aggregated serving of one architecture class (src/model/architecture-class.ts): its own pass scale
   * and admission delay where the class had enough rows to fit them; other classes and disaggregated
   * serving use the values above.
   */
  byArchitecture: z.partialRecord(z.enum(ARCHITECTURE_CLASSES), z.object({ passScale: z.number().positive(), prefillScale: z.number().positive().optional(), admissionMs: z.number().nonnegative(), admissionLagPasses: z.number().int().nonnegative().optional(), rows: z.number().int().nonnegative() })).optional(),
  /** Provenance: fitted rows, folds and held-out errors. */
  source: z.string(),
  rows: z.number().int().nonnegative(),
});
export type ReplayOverhead = z.infer<typeof replayOverheadSchema>;

/**
 * The pass scale and admission delay replay corrections apply to one engine: disaggregated serving
 * gets the (sku, backend) scale and its own delay; aggregated serving gets its architecture class's
 * values where the class has an entry, else the (sku, backend) ones.
 */
export function replayCorrections(
  o: Pick<ReplayOverhead, 'passScale' | 'prefillScale' | 'admissionMs' | 'admissionLagPasses' | 'disaggAdmissionMs' | 'disaggPassScale' | 'disaggPrefillScale' | 'byArchitecture'>,
  mode: 'agg' | 'disagg',
  arch?: ArchitectureClass,
): ReplayCorrections {
  // Disaggregated engines run unmixed batches on the kernel tables as timed (disaggEngineOverhead): the
  // agg-fitted pass scale and prefill factor, fitted on top of the agg kernel scale, do not apply.
  if (mode === 'disagg') return { passScale: o.disaggPassScale ?? o.passScale, prefillScale: o.disaggPrefillScale ?? 1, admissionMs: o.disaggAdmissionMs, admissionLagPasses: 0 };
  const own = arch ? o.byArchitecture?.[arch] : undefined;
  if (own) return { passScale: own.passScale, prefillScale: own.prefillScale ?? 1, admissionMs: own.admissionMs, admissionLagPasses: own.admissionLagPasses ?? 0 };
  return { passScale: o.passScale, prefillScale: o.prefillScale ?? 1, admissionMs: o.admissionMs, admissionLagPasses: o.admissionLagPasses ?? 0 };
}

/** The corrections one engine runs with (replayCorrections). */
export interface ReplayCorrections {
  passScale: number;
  prefillScale: number;
  admissionMs: number;
  /** Agg only (0 in disaggregated serving). */
  admissionLagPasses: number;
}

/** Per-pass overheads not in the kernel tables (fitted from e2e/silicon_dev.csv, see calibrate). */
export const overheadSchema = z.object({
  /** Fixed host/scheduler time added to every engine pass, ms. */
  passMs: z.number().nonnegative(),
  /** Additional fixed time per transformer layer per pass (CPU dispatch), ms. */
  perLayerMs: z.number().nonnegative(),
  /** Multiplier on the summed kernel time (inter-kernel gaps, imperfect overlap). */
  kernelScale: z.number().positive(),
  /**
   * Steady state only: share of the other requests' prefills that interleave with a request's decode
   * phase (1 = every one, as in a perfectly staggered closed loop; the benchmarks behind e2e show less).
   */
  prefillInterleave: z.number().min(0).max(1),
  /**
   * Steady state only: share of the benchmark's requests that arrive in the initial burst (every
   * client starts at t = 0) and queue behind the burst's prefills — 1 / requests per client.
   */
  burstShare: z.number().min(0).max(1),
  /**
   * Steady state only: fixed time to first token outside engine passes (request admission,
   * tokenisation, scheduling, streaming the first token back), ms.
   */
  ttftFixedMs: z.number().nonnegative(),
  /**
   * Steady state only: requests a benchmark run issues at least. The start-up burst is one request
   * per client, so its share of the run is min(burstShare, concurrency / burstRequests): a run of a
   * fixed size is dominated by its burst at high concurrency. 0 = no such floor (share = burstShare).
   */
  burstRequests: z.number().nonnegative().default(0),
  /**
   * Steady state only: factor on the prefill work of the passes a first token waits for (in-engine
   * prefill against the kernel tables: prefill passes run outside CUDA graphs and overlap differently
   * from the decode passes the kernel scale is fitted on). 1 = the engine's pass times.
   */
  prefillScale: z.number().positive().default(1),
  /**
   * Share of each op's per-call floor (the curve's `floorS`; the launch constant of element-wise ops)
   * that the engine does not pay: decode passes replay CUDA graphs (no per-kernel launch) and fuse
   * quantisation into neighbouring kernels, so the smallest kernels run below the collector's floor.
   * Applied as time − launchCredit · kernelScale · floor, never below the op's SOL. 0 = tables as timed.
   */
  launchCredit: z.number().min(0).max(1).default(0),
  /** How these were set: 'fitted:e2e' with row counts, or 'default' with the reason. */
  source: z.string(),
  rows: z.number().int().nonnegative(),  /**
   * Replay only (scripts/calibrate-replay.ts, src/calibration): pass scale and frontend latency fitted
   * against user-path replays of the same e2e rows, because a replay composes passes differently from
   * the steady-state formula above. Absent = none.
   */
  replay: replayOverheadSchema.optional(),
});

export const coefficientsSchema = z.object({
  schema: z.literal(1),
  sku: z.string(),
  backend: z.enum(['vllm', 'sglang', 'trtllm']),
  frameworkVersion: z.string(),
  provenance: z.object({
    source: z.string(),
    snapshot: z.string(),
    tables: z.array(z.object({ family: z.string(), path: z.string(), rows: z.number().int() })),
    fittedAt: z.string(),
    tool: z.string(),
  }),
  reference: z.object({
    memBwBps: z.number().positive(),
    intraNodeBwBps: z.number().positive(),
    flops: z.object({ bf16: z.number().positive(), fp8: z.number().optional(), fp4: z.number().optional() }),
  }),
  overhead: overheadSchema,
  /** family → group (dtype / kernel family) → fitted utilisation curve. */
  families: z.record(z.string(), z.record(z.string(), curveSchema)),
});

export type CoefficientsFile = z.infer<typeof coefficientsSchema>;
export type CurveJson = z.infer<typeof curveSchema>;
export type ErrorStats = z.infer<typeof errorStatsSchema>;
export type Overhead = z.infer<typeof overheadSchema>;

/**
 * The pass model of a disaggregated worker: the kernel tables as timed (kernel scale 1, no launch
 * credit) plus the backend's fixed per-pass and per-layer host time. The aggregated fit's kernel scale
 * and launch credit (calibrate.ts stage 2) are fitted through the steady-state formula on aggregated
 * rows, jointly with its prefill-interleave and burst terms, and take up what aggregated engines do —
 * chunks of prefill riding in decode passes, small-batch decode of mostly dense models — not what an
 * unmixed prefill-only or decode-only engine does. Measured, the isolated-kernel sums are what
 * disaggregated DeepSeek decode workers run at: TPOT within 7 % on all six H200 TRT-LLM rows (TP and
 * attention-DP decode alike) and within 11 % on the six B200 attention-DP ones, where the aggregated
 * factors (0.6 and 0.78 × kernels) made them 1.1–1.6× too fast.
 */
export function disaggEngineOverhead(o: Overhead): Overhead {
  return { ...o, kernelScale: 1, launchCredit: 0 };
}

/** Loaded coefficients with decoded grids. */
export interface Coefficients {
  file: CoefficientsFile;
  curves: Map<string, Grid>; // key `${family}/${group}`
  /** Per-call floor of each curve (s), same keys as `curves`. */
  floors: Map<string, number>;
}

export function defaultCoefficientsDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return resolve(here, '../../../systems/coefficients');
}

export function coefficientsPath(dir: string, sku: string, backend: Backend | string): string {
  return join(dir, sku, `${backend}.json`);
}

export function hasPerfDatabase(sku: string, backend: Backend, coefficientsDir = defaultCoefficientsDir()): boolean {
  return existsSync(coefficientsPath(coefficientsDir, sku, backend));
}

const cache = new Map<string, Coefficients>();

/** Loads (once per path) the coefficients of (sku, backend); NoPerfDatabase when there are none. */
export function loadCoefficients(sku: string, backend: Backend, coefficientsDir = defaultCoefficientsDir()): Coefficients {
  const path = coefficientsPath(coefficientsDir, sku, backend);
  const hit = cache.get(path);
  if (hit) return hit;
  if (!existsSync(path)) throw new NoPerfDatabase(sku, backend);
  const parsed = coefficientsSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new Error(`invalid coefficients file ${path}: ${parsed.error.message}`);
  const curves = new Map<string, Grid>();
  const floors = new Map<string, number>();
  for (const [fam, groups] of Object.entries(parsed.data.families)) {
    for (const [group, c] of Object.entries(groups)) {
      curves.set(`${fam}/${group}`, gridFromJson(c));
      floors.set(`${fam}/${group}`, c.floorS ?? 0);
    }
  }
  const out = { file: parsed.data, curves, floors };
  cache.set(path, out);
  return out;
}

/** Forget loaded files (after a re-calibration in the same process). */
export function clearCoefficientsCache(): void {
  cache.clear();
}
