// `npm run bench backend-gap`: is a backend gap the simulator shows the engines' or the simulator's?
// (issue #17: Llama-3.1-8B tp1 on H200 replays 43 % slower on SGLang than on vLLM, with 3x the TTFT.)
// For every measured agg row of one (model, SKU), it replays the row's config on its own backend
// (predicted vs measured) and the same config on the other backend, through the user path
// (src/calibration: the config a user writes, `spica replay`'s function). The baseline the gap is
// compared with is the measured gap between the backends' rows in the same run.
import { median, replayRow } from '../src/calibration/evaluate.js';
import { loadE2eRows, type AggRow } from '../src/calibration/rows.js';
import { perfdbDir } from '../src/hardware/perf/perfdbTables.js';

const MODEL = process.env.BENCH_GAP_MODEL ?? 'llama_3_1_8b';
const SKU = process.env.BENCH_GAP_SKU ?? 'h200_sxm';
const PAIR = ['vllm', 'sglang'] as const;

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(0)} %`;

export async function run(): Promise<void> {
  const rows = loadE2eRows(perfdbDir()).rows.filter(
    (r): r is AggRow => r.mode === 'agg' && r.sku === SKU && (PAIR as readonly string[]).includes(r.backend) && r.id.toLowerCase().includes(MODEL),
  );
  console.log(`${rows.length} measured agg rows of ${MODEL} on ${SKU} (${PAIR.join(', ')})`);
  console.log('backend  tp  isl/osl     c    | measured TTFT  TPOT | simulated TTFT        TPOT        | same config on the other backend');
  const per = new Map<string, { ttft: number[]; tpot: number[]; simTtft: number[]; simTpot: number[]; otherTtft: number[]; otherTpot: number[] }>();
  for (const row of rows) {
    const own = replayRow(row);
    const otherBackend = row.backend === 'vllm' ? 'sglang' : 'vllm';
    const other = replayRow({ ...row, backend: otherBackend });
    const g = per.get(row.backend) ?? { ttft: [], tpot: [], simTtft: [], simTpot: [], otherTtft: [], otherTpot: [] };
    g.ttft.push(row.ttftMs), g.tpot.push(row.tpotMs), g.simTtft.push(own.ttftMs), g.simTpot.push(own.tpotMs), g.otherTtft.push(other.ttftMs), g.otherTpot.push(other.tpotMs);
    per.set(row.backend, g);
    console.log(
      `${row.backend.padEnd(8)} ${String(row.group.tp).padStart(2)}  ${`${row.isl}/${row.osl}`.padEnd(10)} ${String(row.concurrency).padStart(4)} | ` +
        `${row.ttftMs.toFixed(0).padStart(8)} ms ${row.tpotMs.toFixed(1).padStart(5)} | ${own.ttftMs.toFixed(0).padStart(6)} (${pct(own.ttftErr).padStart(6)}) ${own.tpotMs.toFixed(1).padStart(5)} (${pct(own.tpotErr).padStart(6)}) | ` +
        `${otherBackend}: TTFT ${other.ttftMs.toFixed(0)} ms, TPOT ${other.tpotMs.toFixed(1)} ms`,
    );
  }
  const [a, b] = PAIR.map((k) => per.get(k));
  if (!a || !b) return void console.log('both backends need measured rows for a gap');
  // Medians over each backend's own rows (different shapes and concurrencies: the gap is indicative).
  const measured = { ttft: median(b.ttft) / median(a.ttft), tpot: median(b.tpot) / median(a.tpot) };
  const simulated = { ttft: median(b.simTtft) / median(a.simTtft), tpot: median(b.simTpot) / median(a.simTpot) };
  // Same configs, both backends: the simulator's own gap with the shapes held fixed.
  const sameConfig = { ttft: median([...b.simTtft, ...a.otherTtft]) / median([...a.simTtft, ...b.otherTtft]), tpot: median([...b.simTpot, ...a.otherTpot]) / median([...a.simTpot, ...b.otherTpot]) };
  console.log(`${PAIR[1]} / ${PAIR[0]}, median TTFT and TPOT:`);
  console.log(`  measured rows (baseline)   TTFT ${measured.ttft.toFixed(2)}x  TPOT ${measured.tpot.toFixed(2)}x`);
  console.log(`  simulated, same rows       TTFT ${simulated.ttft.toFixed(2)}x  TPOT ${simulated.tpot.toFixed(2)}x  (ratio to measured: ${(simulated.ttft / measured.ttft).toFixed(2)}, ${(simulated.tpot / measured.tpot).toFixed(2)})`);
  console.log(`  simulated, same configs    TTFT ${sameConfig.ttft.toFixed(2)}x  TPOT ${sameConfig.tpot.toFixed(2)}x`);
}
