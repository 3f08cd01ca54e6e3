// Start-up cost and replay memory of the `spica` process (issue 15 "Start fast", figures):
// (a) `spica validate examples/dense-agg-throughput.yaml` against a bare `node -e 0`, both measured
//     here as the median of several runs: wall ratio (target ≤ 5) and CPU of each.
// (b) `spica replay` of examples/traces/mooncake-small.jsonl with a pinned config: process wall
//     against the simulation time alone (the replay's own `wall_time_ms`): ratio target ≤ 3.
// (c) peak RSS of a 1,000,000-request `spica replay` (synthetic closed loop, pinned; target
//     ≤ 1.5 GB).
// CPU and peak RSS of each child come from its own process.resourceUsage() at exit (a preloaded
// probe writing to stderr). Every child runs the compiled CLI (bin/spica.js rebuilds it first if the
// sources changed).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = path.join(ROOT, 'bin/spica.js');
const RUNS = 7;
const PROBE_SOURCE =
  "process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write(`\\nSPICA_USAGE ${u.userCPUTime + u.systemCPUTime} ${u.maxRSS}\\n`); });\n";

interface Run {
  wallMs: number;
  cpuMs: number;
  maxRssMb: number;
  stdout: string;
}

let probe = '';

/** One child process, timed from outside; the probe adds its CPU time and peak RSS. */
function timed(args: string[]): Run {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(probe).href, ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
  const wallMs = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  const m = /SPICA_USAGE (\d+) (\d+)/.exec(r.stderr);
  if (!m) throw new Error(`no usage line from ${args.join(' ')}`);
  return { wallMs, cpuMs: Number(m[1]) / 1000, maxRssMb: Number(m[2]) / 1024, stdout: r.stdout };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x: number) => `${x.toFixed(0)} ms`;

function medianRun(args: string[]): { wallMs: number; cpuMs: number } {
  const runs = Array.from({ length: RUNS }, () => timed(args));
  return { wallMs: median(runs.map((r) => r.wallMs)), cpuMs: median(runs.map((r) => r.cpuMs)) };
}

const pinned = (workload: string) => `search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  gpu_budget: 8
  deployment_mode: [agg]
  backend: [vllm]
  parallel_configs:
    - {tp: 2, pp: 1, attention_dp: 1, moe_tp: 1, moe_ep: 1, replicas: 2}
  agg_max_num_batched_tokens: [8192]
  agg_max_num_seqs: [256]
  router_mode: [kv_router]
  overlap_score_credit: [1.0]
  prefill_load_scale: [1.0]
  router_temperature: [0.0]
  planner_scaling_policy: [disabled]
workload:
${workload}
`;

export async function run(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'spica-bench-startup-'));
  probe = path.join(dir, 'usage-probe.mjs');
  writeFileSync(probe, PROBE_SOURCE);
  timed([BIN, '--help']); // rebuild now if the sources changed, outside the timing

  // (a) validate vs node -e 0
  const bare = medianRun(['-e', '0']);
  const validate = medianRun([BIN, 'validate', 'examples/dense-agg-throughput.yaml']);
  console.log(`(a) start-up, median of ${RUNS} runs each`);
  console.log(`    node -e 0                       wall ${ms(bare.wallMs)}   cpu ${ms(bare.cpuMs)}`);
  console.log(`    spica validate dense-agg        wall ${ms(validate.wallMs)}   cpu ${ms(validate.cpuMs)}`);
  console.log(
    `    ratio validate / node -e 0      wall ${(validate.wallMs / bare.wallMs).toFixed(2)}×   cpu ${(validate.cpuMs / bare.cpuMs).toFixed(2)}×   (target ≤ 5× wall)`,
  );

  // (b) pinned mooncake-small replay: process wall vs simulation time
  const traceConfig = path.join(dir, 'mooncake-pinned.yaml');
  writeFileSync(traceConfig, pinned(`  trace_path: ${path.join(ROOT, 'examples/traces/mooncake-small.jsonl')}`));
  const replays = Array.from({ length: 3 }, () => {
    const r = timed([BIN, 'replay', traceConfig, '--json']);
    const report = JSON.parse(r.stdout) as { metrics: { completed_requests: number }; metadata: { wall_time_ms: number } };
    return { ...r, simMs: report.metadata.wall_time_ms, completed: report.metrics.completed_requests };
  });
  const rep = replays.sort((a, b) => a.wallMs / a.simMs - b.wallMs / b.simMs)[1];
  console.log(`(b) spica replay mooncake-small (${rep.completed} requests, pinned agg tp2×2, kv_router), median of 3`);
  console.log(`    process wall ${ms(rep.wallMs)}   cpu ${ms(rep.cpuMs)}   simulation alone ${ms(rep.simMs)}`);
  console.log(`    ratio process / simulation      ${(rep.wallMs / rep.simMs).toFixed(2)}×   (target ≤ 3×)`);

  // (c) 1M-request replay peak RSS
  const bigConfig = path.join(dir, 'million.yaml');
  writeFileSync(bigConfig, pinned('  isl: 1024\n  osl: 128\n  concurrency: 512\n  num_request_ratio: 1953.125').replace('replicas: 2', 'replicas: 4'));
  const big = timed([BIN, 'replay', bigConfig, '--json']);
  const report = JSON.parse(big.stdout) as { metrics: { completed_requests: number }; metadata: { wall_time_ms: number } };
  console.log(`(c) spica replay of ${report.metrics.completed_requests} requests (isl 1024, osl 128, closed loop 512, tp2×4)`);
  console.log(
    `    peak RSS ${(big.maxRssMb / 1024).toFixed(2)} GB   (target ≤ 1.5 GB)   wall ${ms(big.wallMs)}   cpu ${ms(big.cpuMs)}   simulation ${ms(report.metadata.wall_time_ms)}`,
  );
}
