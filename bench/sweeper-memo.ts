// The sweeper benchmark's replay memo: every candidate of a problem is replayed once (the simulator is
// deterministic) and kept on disk, so the benchmark re-runs in minutes. The file lives outside the
// tracked tree (default `.spica/bench-memo/`, git-ignored; env SPICA_BENCH_MEMO=<dir> moves it) and is
// keyed by the problem's config text, the simulator version and the perf-data fingerprint: a
// recalibration or an edited problem starts a new memo. A simulator code change without a version
// bump is not detected.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { evaluateCandidate } from '../activities/evaluate.js';
import { traceInputsFor, type TraceInputs } from '../activities/sweep-inputs.js';
import { parseConfigText } from '../src/config/load.js';
import type { SmartSearchConfig } from '../src/config/schema.js';
import { perfDataFingerprint } from '../src/hardware/perf-data-fingerprint.js';
import { REPLAY_RUNNER_CAPABILITIES } from '../src/replay/capabilities.js';
import { SIMULATOR_VERSION } from '../src/replay/report.js';
import type { CandidateEvaluator } from '../src/search/runSweepLocal.js';
import type { EvalOutcome } from '../src/search/trial.js';
import type { BenchProblem } from './sweeper-problems.js';

/** Saved every this many new replays, so an interrupted enumeration keeps what it did. */
const SAVE_EVERY = 500;

/** The problem's config with this `sweep:` block; `mode` keeps only that deployment_mode branch. */
export function problemConfig(problem: BenchProblem, sweep: string, mode?: string): SmartSearchConfig {
  const yaml = mode ? problem.yaml.replace(/deployment_mode: \[[^\]]*\]/, `deployment_mode: [${mode}]`) : problem.yaml;
  return parseConfigText(`${yaml}\nsweep: ${sweep}\n`, {
    sourceName: problem.name,
    ...(problem.baseDir ? { baseDir: resolve(problem.baseDir) } : {}),
  });
}

export class ReplayMemo {
  readonly file: string;
  private readonly memo: Map<string, EvalOutcome>;
  private unsaved = 0;
  /** Replays run (memo misses) since this memo was loaded. */
  replays = 0;
  /** CPU milliseconds those replays took. */
  replayCpuMs = 0;
  readonly trace: TraceInputs;

  constructor(readonly problem: BenchProblem) {
    const dir = process.env.SPICA_BENCH_MEMO ?? join('.spica', 'bench-memo');
    const tag = createHash('sha256').update(problem.yaml).digest('hex').slice(0, 10);
    const version = `${SIMULATOR_VERSION}_${perfDataFingerprint().slice(0, 12)}`;
    this.file = join(dir, `${`${problem.name}_${tag}_${version}`.replace(/[^A-Za-z0-9]+/g, '_')}.json`);
    this.memo = new Map(existsSync(this.file) ? (JSON.parse(readFileSync(this.file, 'utf8')) as [string, EvalOutcome][]) : []);
    this.trace = traceInputsFor(problemConfig(problem, '{policy: thorough}'));
  }

  get size(): number {
    return this.memo.size;
  }

  /** An evaluator answering from the memo, replaying (and remembering) what it has not seen. */
  evaluator(config: SmartSearchConfig): CandidateEvaluator {
    return {
      simulatorVersion: SIMULATOR_VERSION,
      capabilities: REPLAY_RUNNER_CAPABILITIES,
      evaluate: async (cands) =>
        cands.map((m) => {
          const hit = this.memo.get(m.key);
          if (hit) return hit;
          const c0 = process.cpuUsage();
          const out = evaluateCandidate({ config, traceSha256: this.trace.traceSha256 }, m);
          const c = process.cpuUsage(c0);
          this.replayCpuMs += (c.user + c.system) / 1000;
          this.replays += 1;
          this.memo.set(m.key, out);
          if (++this.unsaved >= SAVE_EVERY) this.save();
          return out;
        }),
    };
  }

  save(): void {
    if (this.unsaved === 0 && existsSync(this.file)) return;
    mkdirSync(join(this.file, '..'), { recursive: true });
    writeFileSync(`${this.file}.tmp`, JSON.stringify([...this.memo]));
    renameSync(`${this.file}.tmp`, this.file);
    this.unsaved = 0;
  }
}
