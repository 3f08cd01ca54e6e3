// Temporal costs and scale-out of the durable sweep (issues 8, 15; CLARIFICATIONS §E: replays of about
// 1 s each). Every figure comes with its baseline measured in the same run, wall and CPU time.
// (a) Temporal vs --local: `spica sweep <config> --json` as a user runs it, against a server that is
//     already running — `spica server`, whose worker takes the run (warmed by one sweep, or this sweep
//     its first), and a server without worker, so that the sweep runs its own — vs `spica sweep
//     <config> --local --json`, same config, fresh caches, all as processes: the examples and a
//     ≥ 256-replay sweep. Target ≤ 1.2×.
// (c) Scale-out: the same ~64-replay sweep driven by two `spica worker --concurrency 1` processes vs
//     one: wall ratio (target ≤ 0.6 on 2 cores) and each worker's share of the replays (target ≥ 40 %).
// (b) Crash pick-up of a long branch: a `spica worker` child process drives a branch to ~500 finished
//     trials (cheap replays), is SIGKILLed, and a fresh in-process worker takes over. Prints the time
//     until the fresh worker answers a progress query (full history replay, no sticky cache) and until
//     the branch records its next trial, against the query latency on the warm worker before the crash.
// (d) Size: the 10,000-trial sweeps of issue 16 (bench/temporal-scale.ts), on their own servers.
// BENCH_TEMPORAL_ONLY=overhead,scaleout,pickup,scale picks parts; in (a), BENCH_TEMPORAL_CASES=dense,moe,256
// picks cases and BENCH_TEMPORAL_REPS (default 3) sets the pairs per case (medians printed).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { replayPool } from '../activities/replay-pool.js';
import { runScale } from './temporal-scale.js';
import { localActivityMarker, type HistoryEvent } from '../test/support/history-markers.js';
import { provisionTemporalCli } from '../src/cli/temporal/cli-binary.js';
import { resolveSweepOutcome } from '../src/cli/sweeps/sweep-outcome.js';
import { loadDevServerConfig } from '../src/cli/temporal/dev-config.js';
import { startDevServer } from '../src/cli/temporal/dev-server.js';
import { freePort } from '../src/cli/temporal/free-port.js';
import { createSpicaWorker, spicaWorkflowBundle } from '../src/cli/temporal/worker.js';
import { parseConfigText } from '../src/config/load.js';
import { canonicalJson } from '../src/config/canonical-json.js';
import type { SweepResult } from '../src/search/sweepResult.js';
import { branchProgressQuery } from '../workflows/messages.js';
import { branchWorkflowId, progressQuery, type sweep } from '../workflows/sweep.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const POOL = 2;

const configYaml = (w: { isl: number; osl: number; concurrency: number; ratio: number }, rounds: number, perRound = 2) => `search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  gpu_budget: 2
  deployment_mode: [agg]
  backend: [vllm]
workload:
  isl: ${w.isl}
  osl: ${w.osl}
  concurrency: ${w.concurrency}
  num_request_ratio: ${w.ratio}
goal:
  target: throughput
sweep:
  max_rounds: ${rounds}
  candidates_per_round: ${perRound}
  parallel_evals: ${perRound}
  seed: 5
`;
// ~1 s per replay on an idle box, as the Temporal-overhead benchmark wants them (CLARIFICATIONS E):
// the 256-replay case and the scale-out sweep, whose measurement is then about replays, not about a
// round's orchestration and optimizer ask (the same in every arm). Ratio 45 gave ~1 s when this bench
// was written and ~0.3 s since the simulator got faster (the 256 case used it until 2026-12-05).
const SECOND_WORKLOAD = { isl: 4096, osl: 1024, concurrency: 48, ratio: 135 };
// ~0.1 s per replay.
const CHEAP_WORKLOAD = { isl: 128, osl: 64, concurrency: 4, ratio: 4 };
// 8 rounds of 8: ~64 replays. Waves of 8, not 2: with waves of 2 each worker gets exactly one replay
// per wave and waits for the other's, so a wave lasts its slower replay, and two workers approach half
// the time only if both replays of every wave take the same time (the candidates' replay times
// differ); with 8 the two workers each take the next replay as they finish one, as on a real sweep
// (parallel_evals defaults to 16).
const SCALE_OUT_ROUNDS = 8;
const SCALE_OUT_PER_ROUND = 8;
// ≥ 256 replays of ~1 s.
const OVERHEAD_256_ROUNDS = 128;
const CLOCK_TICKS = 100; // USER_HZ of /proc/<pid>/stat on Linux
const PICKUP_TRIALS = 500;

// Key order is not part of a result (the Temporal path re-assembles objects): compare canonically.
const strip = (r: SweepResult) => canonicalJson({ ...r, sweep_id: null, counts: { ...r.counts, cache_hits: 0 } });
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const eventMs = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;

/** The first workflow task started at/after `sinceEpochMs` that completed: when it started, how long it took. */
function firstWorkflowTaskAfter(events: HistoryEvent[], sinceEpochMs: number): { startedAfterMs: number; durationMs: number } | null {
  for (const e of events) {
    const startedId = e.workflowTaskCompletedEventAttributes?.startedEventId;
    if (startedId == null) continue;
    const started = events.find((x) => Number(x.eventId) === Number(startedId));
    const startMs = eventMs(started?.eventTime);
    if (startMs >= sinceEpochMs) return { startedAfterMs: startMs - sinceEpochMs, durationMs: eventMs(e.eventTime) - startMs };
  }
  return null;
}

async function trialsDone(handle: WorkflowHandle<typeof sweep>): Promise<number> {
  const p = await handle.query(progressQuery);
  return p.branches.reduce((n, b) => n + b.trials_done, 0);
}

interface Timed {
  wallMs: number;
  /** User + system CPU of the process and all its threads; null when /usr/bin/time is missing. */
  cpuMs: number | null;
  stdout: string;
  /** The last 20 kB of stderr. */
  stderr: string;
}

const TIME_BIN = '/usr/bin/time';

/** Runs `spica <args>` as a process under /usr/bin/time (wall and CPU of that process). */
async function timedSpica(args: string[], env: Record<string, string>): Promise<Timed> {
  const timeFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'spica-bench-time-')), 'time');
  const useTime = existsSync(TIME_BIN);
  const argv = [path.join(ROOT, 'bin/spica.js'), ...args];
  const start = performance.now();
  const child = useTime
    ? spawn(TIME_BIN, ['-f', '%e %U %S', '-o', timeFile, process.execPath, ...argv], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, argv, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20_000)));
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  const wallMs = performance.now() - start;
  if (code !== 0 && code !== 1) throw new Error(`spica ${args.join(' ')} exited ${code}:\n${stderr}`);
  let cpuMs: number | null = null;
  if (useTime) {
    const [, user, sys] = readFileSync(timeFile, 'utf8').trim().split(/\s+/).slice(-3).map(Number);
    cpuMs = (user + sys) * 1000;
  }
  return { wallMs, cpuMs, stdout, stderr };
}

const cpu = (ms: number | null) => (ms === null ? 'n/a' : secs(ms));
const ratio = (a: number | null, b: number | null) => (a === null || b === null ? 'n/a' : `${(a / b).toFixed(2)}×`);

const median = (xs: number[]) => {
  const a = [...xs].sort((x, y) => x - y);
  const m = a.length >> 1;
  return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2;
};
const load1 = () => os.loadavg()[0].toFixed(1);

/**
 * (a) Each case runs BENCH_TEMPORAL_REPS times (default 3) as pairs, the two arms back to back in
 * alternating order, so both see the same machine load; the ratios are of the medians.
 * BENCH_TEMPORAL_CASES=dense,moe,256 picks cases.
 */
async function overhead(address: string, namespace: string): Promise<void> {
  const bigConfig = path.join(mkdtempSync(path.join(os.tmpdir(), 'spica-bench-cfg-')), 'sweep-256.yaml');
  writeFileSync(bigConfig, configYaml(SECOND_WORKLOAD, OVERHEAD_256_ROUNDS));
  const cases = [
    { key: 'dense', name: 'examples/dense-agg-throughput.yaml', file: path.join(ROOT, 'examples/dense-agg-throughput.yaml') },
    { key: 'moe', name: 'examples/moe-disagg-pareto.yaml', file: path.join(ROOT, 'examples/moe-disagg-pareto.yaml') },
    { key: '256', name: `~1 s replays, ${OVERHEAD_256_ROUNDS} rounds of 2`, file: bigConfig },
  ].map((c) => ({ ...c, warmUp: path.join(ROOT, c.key === 'dense' ? 'examples/moe-disagg-pareto.yaml' : 'examples/dense-agg-throughput.yaml') }));
  const picked = (process.env.BENCH_TEMPORAL_CASES ?? 'dense,moe,256').split(',');
  const reps = Math.max(1, Number(process.env.BENCH_TEMPORAL_REPS ?? 3));
  console.log(
    `(a) Temporal (\`spica sweep --json\`, server already running) vs \`spica sweep --local --json\`; fresh caches, processes timed whole; ${reps} run(s) per arm and case, arms back to back in alternating order, medians (${os.cpus().length} cores). Three Temporal arms: \`spica server\` running (started with fresh caches), whose worker the sweep hands its run to: warmed by one sweep of another config, or as the first sweep it runs; and the sweep's own in-process worker (a server without worker: no worker polls)`,
  );
  let n = 0;
  for (const c of cases.filter((x) => picked.includes(x.key))) {
    const fresh = () => ({ SPICA_CACHE_DIR: mkdtempSync(path.join(os.tmpdir(), 'spica-bench-cache-')), SPICA_RESULT_STORE: mkdtempSync(path.join(os.tmpdir(), 'spica-bench-results-')) });
    const temporal = (taskQueue: string) => ['--json', '--address', address, '--namespace', namespace, '--task-queue', taskQueue];
    const runLocal = () => timedSpica(['sweep', c.file, '--local', '--json'], fresh());
    const runDurable = () => timedSpica(['sweep', c.file, ...temporal(`bench-overhead-${n++}`)], fresh());
    // On `spica server` as a user starts it, with the worker it runs (fresh caches): `warm`, that worker
    // has run one sweep of another config first; else this sweep is its first.
    const runOnServer = async (warm: boolean): Promise<Timed & { workerCpuMs: number | null }> => {
      const caches = fresh(); // the server's worker's and the sweep's (a result over the inline limit is read from the shared store)
      const port = await freePort();
      const server = await serverProcess(port, caches);
      const at = ['--json', '--address', `127.0.0.1:${port}`];
      try {
        if (warm) await timedSpica(['sweep', c.warmUp, ...at], caches);
        const cpu0 = processCpuMs(server.pid);
        const timed = await timedSpica(['sweep', c.file, ...at], caches);
        const cpu1 = processCpuMs(server.pid);
        if (!timed.stderr.includes('run by the worker(s) polling')) throw new Error(`${c.name}: the sweep was not handed to the server's worker`);
        if ((JSON.parse(timed.stdout) as SweepResult).counts.cache_hits !== 0) throw new Error(`${c.name}: the warm-up sweep left replays in the worker's cache`);
        return { ...timed, workerCpuMs: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0 };
      } finally {
        await server.stop();
      }
    };
    const locals: Timed[] = [];
    const durables: Timed[] = [];
    const handedOver: (Timed & { workerCpuMs: number | null })[] = [];
    const firstSweeps: (Timed & { workerCpuMs: number | null })[] = [];
    const loads: string[] = [load1()];
    let first: SweepResult | null = null;
    for (let r = 0; r < reps; r++) {
      // Alternate the order of the arms, so a load trend does not favour one.
      const arms = [
        async () => locals.push(await runLocal()),
        async () => durables.push(await runDurable()),
        async () => handedOver.push(await runOnServer(true)),
        async () => firstSweeps.push(await runOnServer(false)),
      ];
      for (const arm of r % 2 === 0 ? arms : arms.reverse()) await arm();
      loads.push(load1());
      const a = JSON.parse(locals[r].stdout) as SweepResult;
      for (const [arm, b] of [['in-process', durables[r]], ['handed-over', handedOver[r]], ['handed-over, first sweep', firstSweeps[r]]] as const) {
        if (strip(a) !== strip(JSON.parse(b.stdout) as SweepResult)) throw new Error(`${c.name}: the Temporal (${arm}) result differs from --local`);
      }
      if (first && strip(first) !== strip(a)) throw new Error(`${c.name}: a repeated run differs from the first`);
      first ??= a;
    }
    const replays = first!.candidates.filter((x) => !x.cache_hit).length;
    const walls = (xs: Timed[]) => xs.map((x) => x.wallMs);
    const cpus = (xs: Timed[]) => (xs.some((x) => x.cpuMs === null) ? null : xs.map((x) => x.cpuMs!));
    const list = (xs: number[] | null) => (xs === null ? 'n/a' : xs.map((x) => (x / 1000).toFixed(2)).join(' / '));
    const med = (xs: number[] | null) => (xs === null ? null : median(xs));
    console.log(`    ${c.name}: ${first!.counts.evaluated} trials, ${replays} replays; results identical (Temporal = --local, every repetition)`);
    console.log(`      --local:   wall ${secs(median(walls(locals)))}, CPU ${cpu(med(cpus(locals)))}   (each: wall ${list(walls(locals))} s; CPU ${list(cpus(locals))} s)`);
    console.log(`      Temporal, own worker:  wall ${secs(median(walls(durables)))}, CPU ${cpu(med(cpus(durables)))}   (each: wall ${list(walls(durables))} s; CPU ${list(cpus(durables))} s)`);
    console.log(
      `      ratio Temporal (own worker) / --local (medians): wall ${ratio(median(walls(durables)), median(walls(locals)))} (target ≤ 1.2), CPU ${ratio(med(cpus(durables)), med(cpus(locals)))}; load average (1 min) ${loads.join(' → ')}`,
    );
    // What Temporal adds in seconds: a fixed start-up share (SDK load, connect, worker, first tasks)
    // does not shrink with the sweep, so small sweeps show it as a larger ratio.
    const signed = (ms: number) => `${ms < 0 ? '−' : '+'}${secs(Math.abs(ms))}`;
    const diffCpu = cpus(durables) && cpus(locals) ? signed(med(cpus(durables))! - med(cpus(locals))!) : 'n/a';
    console.log(`      Temporal (own worker) − --local (medians): wall ${signed(median(walls(durables)) - median(walls(locals)))}, CPU ${diffCpu}`);
    // Handed over: the sweep process only starts and follows the run; its CPU plus the server process's (its worker; the Temporal server is a child process, not counted, as in the own-worker arm).
    const handedOverLines = (label: string, runs: (Timed & { workerCpuMs: number | null })[]) => {
      const totalCpus = runs.some((x) => x.cpuMs === null || x.workerCpuMs === null) ? null : runs.map((x) => x.cpuMs! + x.workerCpuMs!);
      const workerCpus = totalCpus === null ? null : runs.map((x) => x.workerCpuMs!);
      console.log(
        `      Temporal, ${label}:  wall ${secs(median(walls(runs)))}, CPU ${cpu(med(totalCpus))} = sweep process ${cpu(med(cpus(runs)))} + worker ${cpu(med(workerCpus))}   (each: wall ${list(walls(runs))} s; CPU ${list(totalCpus)} s)`,
      );
      console.log(
        `      ratio Temporal (${label}) / --local (medians): wall ${ratio(median(walls(runs)), median(walls(locals)))} (target ≤ 1.2), CPU ${ratio(med(totalCpus), med(cpus(locals)))}; Temporal − --local: wall ${signed(median(walls(runs)) - median(walls(locals)))}`,
      );
    };
    handedOverLines("`spica server` running, its worker warmed by one sweep of another config", handedOver);
    handedOverLines("`spica server` just started, its worker's first sweep", firstSweeps);
  }
}

/** CPU time (user + system, all threads) of a live process, from /proc; null elsewhere. */
function processCpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** A `spica worker` process; resolves once it polls. Workers of one run share `cacheDir`, as machines share a store. */
function workerProcess(address: string, namespace: string, taskQueue: string, concurrency: number | null, cacheDir: string, env: Record<string, string> = {}) {
  const args = ['worker', '--address', address, '--namespace', namespace, '--task-queue', taskQueue, '--cache-dir', cacheDir];
  return spicaProcess([...args, ...(concurrency === null ? [] : ['--concurrency', String(concurrency)])], env);
}

/** `spica server` as a user starts it (its worker beside it), in memory on `port`; resolves once its worker polls. */
function serverProcess(port: number, env: Record<string, string>) {
  return spicaProcess(['server', '--port', String(port), '--headless', '--in-memory'], env);
}

/** A long-running `spica` command (worker, server); resolves once its worker polls, stops on SIGTERM. */
async function spicaProcess(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/spica.js'), ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20_000)));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  for (let i = 0; !stderr.includes('worker polling task queue'); i++) {
    if (child.exitCode !== null || i > 1200) throw new Error(`spica ${args[0]} did not start:\n${stderr}`);
    await sleep(100);
  }
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  return { pid: child.pid!, stop };
}

const REPLAY_ACTIVITIES = new Set(['replayCandidate', 'replayWave']);

/**
 * Candidates replayed per worker identity prefix and their mean replay time: replay activities (start
 * to completion), and waves a lone worker replayed itself (replayWave local activities, their recorded
 * replay_ms, attributed to the worker whose workflow task recorded them).
 */
function replayWork(
  events: HistoryEvent[],
  identities: string[],
): { perWorker: number[]; total: number; meanMs: number; waveMs: number; spanMs: number } {
  const byId = new Map(events.map((e) => [Number(e.eventId), e]));
  const perWorker = identities.map(() => 0);
  let total = 0;
  let ms = 0;
  /** Per wave (the workflow task that scheduled its replays): scheduled at, last completion. */
  const waves = new Map<number, { from: number; to: number }>();
  let hereMs = 0;
  let taskIdentity = '';
  const count = (identity: string, n: number) => {
    total += n;
    const i = identities.findIndex((id) => identity.startsWith(id));
    if (i >= 0) perWorker[i] += n;
  };
  for (const e of events) {
    taskIdentity = e.workflowTaskCompletedEventAttributes?.identity ?? taskIdentity;
    const marker = localActivityMarker(e);
    if (marker?.type === 'replayWave') {
      const wave = marker.result as { outcomes: unknown[]; replay_ms?: number } | null;
      count(taskIdentity, wave?.outcomes.length ?? 0);
      ms += wave?.replay_ms ?? 0;
      hereMs += wave?.replay_ms ?? 0;
    }
    const done = e.activityTaskCompletedEventAttributes;
    if (!done) continue;
    const scheduledEvent = byId.get(Number(done.scheduledEventId));
    const scheduled = scheduledEvent?.activityTaskScheduledEventAttributes;
    const startedEvent = byId.get(Number(done.startedEventId));
    const started = startedEvent?.activityTaskStartedEventAttributes;
    if (!scheduled || !started || !REPLAY_ACTIVITIES.has(scheduled.activityType?.name ?? '')) continue;
    let n = 1;
    if (scheduled.activityType?.name === 'replayWave') {
      const data = scheduled.input?.payloads?.[0]?.data;
      n = data ? (JSON.parse(Buffer.from(data).toString()) as { candidates: unknown[] }).candidates.length : 1;
    }
    count(started.identity ?? '', n);
    ms += eventMs(e.eventTime) - eventMs(startedEvent!.eventTime);
    const task = Number(scheduled.workflowTaskCompletedEventId);
    const wave = waves.get(task) ?? { from: eventMs(scheduledEvent!.eventTime), to: 0 };
    wave.to = Math.max(wave.to, eventMs(e.eventTime));
    waves.set(task, wave);
  }
  const waveMs = hereMs + [...waves.values()].reduce((a, w) => a + (w.to - w.from), 0);
  const spanMs = events.length > 0 ? eventMs(events[events.length - 1].eventTime) - eventMs(events[0].eventTime) : 0;
  return { perWorker, total, meanMs: ms / Math.max(1, total), waveMs, spanMs };
}

async function scaleOut(client: Client, address: string, namespace: string): Promise<void> {
  const config = parseConfigText(configYaml(SECOND_WORKLOAD, SCALE_OUT_ROUNDS, SCALE_OUT_PER_ROUND));
  const runWith = async (workers: number) => {
    const taskQueue = `bench-scale-${workers}`;
    // One fresh replay cache per run, shared by its workers (as workers on several machines share the
    // store): with a cache each, the worker that reports replayed again every trial the other one ran.
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'spica-bench-cache-'));
    const procs = await Promise.all(Array.from({ length: workers }, () => workerProcess(address, namespace, taskQueue, 1, cacheDir)));
    try {
      const load0 = os.loadavg()[0];
      const cpu0 = procs.map((p) => processCpuMs(p.pid));
      const start = performance.now();
      const workflowId = `bench-scale-${workers}-${Date.now()}`;
      // A result over the inline limit comes back as a stored-result reference: read it the way the CLI does.
      const result = await resolveSweepOutcome(await client.workflow.execute<typeof sweep>('sweep', { workflowId, taskQueue, args: [config] }), workflowId);
      const wallMs = performance.now() - start;
      const cpuMs = procs.map((p, i) => {
        const now = processCpuMs(p.pid);
        return now === null || cpu0[i] === null ? null : now - cpu0[i]!;
      });
      const events = (await client.workflow.getHandle(branchWorkflowId(workflowId, 'agg')).fetchHistory()).events ?? [];
      const work = replayWork(events, procs.map((p) => `${p.pid}@`));
      return { result, wallMs, cpuMs, work, events: events.length, load0, load: os.loadavg()[0] };
    } finally {
      await Promise.all(procs.map((p) => p.stop()));
    }
  };
  const one = await runWith(1);
  const two = await runWith(2);
  if (strip(one.result) !== strip(two.result)) throw new Error('the two-worker result differs from the one-worker result');
  const replayed = one.result.candidates.filter((c) => !c.cache_hit).length;
  const sum = (xs: (number | null)[]) => (xs.some((x) => x === null) ? null : (xs as number[]).reduce((a, b) => a + b, 0));
  console.log(`(c) scale-out: ${one.result.counts.evaluated} trials, ${replayed} replays (~1 s each on an idle box), parallel_evals ${SCALE_OUT_PER_ROUND}; \`spica worker --concurrency 1\` processes`);
  console.log(`    one worker:   wall ${secs(one.wallMs)}, worker CPU ${cpu(sum(one.cpuMs))}`);
  console.log(`    two workers:  wall ${secs(two.wallMs)}, worker CPU ${cpu(sum(two.cpuMs))} (${two.cpuMs.map(cpu).join(' + ')})`);
  console.log(`    ratio two / one: wall ${(two.wallMs / one.wallMs).toFixed(2)} (target ≤ 0.6), CPU ${ratio(sum(two.cpuMs), sum(one.cpuMs))}`);
  // Replay work per worker: candidates of the replay activities each worker ran (a replayCandidate is
  // one, a replayWave unit its candidates), from the branch's history; other activities do not count.
  const shares = two.work.perWorker.map((r) => (100 * r) / Math.max(1, two.work.total));
  console.log(
    `    replays run per worker (branch history): ${two.work.perWorker.join(' / ')} of ${two.work.total} = ${shares.map((x) => `${x.toFixed(0)} %`).join(' / ')} (target ≥ 40 % each)`,
  );
  // Two workers halve the wall time only while the machine has a free core for the second replay
  // thread: a replay that takes longer with two workers says it had none (the load average says why).
  console.log(`    replay time (activity start to completion; a lone worker's waves: their recorded replay time): mean ${secs(one.work.meanMs)} per candidate with one worker, ${secs(two.work.meanMs)} with two`);
  // Not the target figure: the wall ratio had each replay run as fast with two workers as with one,
  // i.e. what the scheduling gives when the machine has a free core for the second worker.
  const equalSpeed = (two.wallMs / one.wallMs) * (one.work.meanMs / Math.max(1, two.work.meanMs));
  console.log(`    wall ratio at equal replay speed (ratio × one-worker / two-worker replay time; what free cores would give): ${equalSpeed.toFixed(2)}`);
  console.log(
    `    machine load average (1 min) at the start / end of each run: one ${one.load0.toFixed(1)} / ${one.load.toFixed(1)}, two ${two.load0.toFixed(1)} / ${two.load.toFixed(1)} (${os.cpus().length} cores)`,
  );
  // Where the branch's time went: its waves (first replay scheduled to last completed) and the rest
  // (optimizer asks, workflow tasks, orchestration), which two workers cannot shorten.
  for (const [name, r] of [['one worker', one], ['two workers', two]] as const) {
    console.log(`    branch ${name}: ${secs(r.work.spanMs)} = waves ${secs(r.work.waveMs)} + between waves ${secs(r.work.spanMs - r.work.waveMs)} (asks, workflow tasks)`);
  }
  // One worker alone replays its waves inside the branch's workflow tasks (local activities); two
  // schedule a replay activity per candidate: the history costs differ.
  console.log(
    `    branch history: ${(one.events / one.result.counts.evaluated).toFixed(1)} events per trial with one worker (waves replayed in its workflow tasks), ${(two.events / two.result.counts.evaluated).toFixed(1)} with two (an activity per replay)`,
  );
}

async function pickup(client: Client, address: string, namespace: string): Promise<void> {
  const config = parseConfigText(configYaml(CHEAP_WORKLOAD, Math.ceil(PICKUP_TRIALS / 2) + 40));
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'spica-bench-cache-'));
  process.env.SPICA_CACHE_DIR = cacheDir;
  const taskQueue = 'bench-pickup';
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'bin/spica.js'), 'worker', '--address', address, '--namespace', namespace, '--task-queue', taskQueue, '--concurrency', String(POOL), '--cache-dir', cacheDir],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20_000)));
  let gone: string | null = null;
  const exited = new Promise((r) => child.on('exit', (code, signal) => r((gone = `code ${code}, signal ${signal}`))));
  const handle = await client.workflow.start<typeof sweep>('sweep', { workflowId: 'bench-pickup', taskQueue, args: [config] });
  const branch = client.workflow.getHandle(branchWorkflowId(handle.workflowId, 'agg'));
  try {
    const buildStart = performance.now();
    let done = 0;
    while (done < PICKUP_TRIALS) {
      if (gone) throw new Error(`the spica worker exited early (${gone}) at ${done} trials:\n${stderr}`);
      await sleep(500);
      done = await trialsDone(handle).catch(() => 0);
    }
    const buildMs = performance.now() - buildStart;
    // Query latency on the warm worker (workflow cached in memory): the baseline.
    const w0 = performance.now();
    const atKillProgress = await branch.query(branchProgressQuery);
    const warmQueryMs = performance.now() - w0;
    child.kill('SIGKILL');
    await exited;
    const atKill = await branch.describe();
    // Let the server give up on the dead worker's wave (heartbeat timeout) so the pick-up below is
    // history replay and the re-run wave, not the wait for the timeout.
    while ((await branch.describe()).raw.pendingActivities?.some((a) => a.state === 2 /* STARTED */)) await sleep(250);

    await spicaWorkflowBundle(); // built in (a): pick-up is measured from worker creation
    const t0 = performance.now();
    const t0Epoch = Date.now();
    const fresh = await createSpicaWorker({ address, namespace, taskQueue, concurrency: POOL });
    try {
      const { firstTask, progressMs } = await fresh.worker.runUntil(async () => {
        // The first workflow task the fresh worker completes on the branch replays its whole current
        // run (re-telling every trial; asks come from local-activity markers) before it can add a command.
        let firstTask: { startedAfterMs: number; durationMs: number } | null = null;
        while (!firstTask) {
          await sleep(500);
          firstTask = firstWorkflowTaskAfter((await branch.fetchHistory()).events ?? [], t0Epoch);
        }
        // Queries time out while the replay runs: poll until one shows a new trial.
        while ((await branch.query(branchProgressQuery).then((p) => p.trials_done, () => -1)) <= atKillProgress.trials_done) await sleep(100);
        return { firstTask, progressMs: performance.now() - t0 };
      });
      console.log(`(b) branch built to ${atKillProgress.trials_done} trials in ${secs(buildMs)} by a \`spica worker\` process, then SIGKILLed`);
      console.log(`    branch history at the crash:   ${atKill.historyLength} events in its current run (${atKillProgress.continued_as_new} continue-as-new hand-overs before it)`);
      console.log(`    warm worker, branch progress query (baseline):   ${secs(warmQueryMs)}`);
      console.log(`    fresh worker, first branch workflow task:        ${secs(firstTask.durationMs)} (history replay; started ${secs(firstTask.startedAfterMs)} after worker creation; ${(firstTask.durationMs / warmQueryMs).toFixed(0)}× the warm query)`);
      console.log(`    fresh worker, next trial visible:                ${secs(progressMs)} after worker creation`);
    } finally {
      await handle.terminate('benchmark done').catch(() => undefined);
      await fresh.close();
    }
  } finally {
    if (!gone) child.kill('SIGKILL');
    await handle.terminate('benchmark done').catch(() => undefined);
  }
}

export async function run(): Promise<void> {
  const only = (process.env.BENCH_TEMPORAL_ONLY ?? 'overhead,scaleout,pickup,scale').split(',');
  if (only.some((p) => p !== 'scale')) await costsAndScaleOut(only);
  // After that server is stopped: the size scenarios start their own Temporal and PostgreSQL.
  if (only.includes('scale')) await runScale();
}

async function costsAndScaleOut(only: readonly string[]): Promise<void> {
  const cli = await provisionTemporalCli({ log: () => undefined });
  const server = await startDevServer(
    { ...loadDevServerConfig(), port: await freePort(), ui: { enabled: false }, db_filename: null, log_level: 'error', startup_timeout_seconds: 90 },
    { cliPath: cli.path, reuse: false },
  );
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });
  try {
    if (only.includes('overhead')) await overhead(server.address, server.namespace);
    if (only.includes('scaleout')) await scaleOut(client, server.address, server.namespace);
    if (only.includes('pickup')) await pickup(client, server.address, server.namespace);
  } finally {
    await replayPool().close();
    await connection.close();
    await server.stop();
  }
}
