// bench_run.sh: an AIPerf run (dynamo-facts §7) that sends the deployed endpoint the workload the
// replay simulated — the same ISL/OSL, request count, closed-loop concurrency (the derived one for
// kv_load_ratio workloads), request rate (constant arrivals, as the replay spaces them), shared
// prefixes and sessions, or the same Mooncake trace on its timestamps. What AIPerf cannot express
// exactly is a comment in the script's unflagged format.
import { WorkloadSchema } from '../../config/schema.js';
import { syntheticRequestCount } from '../../replay/workload/kv-load.js';
import type { CandidateRow, SweepResult } from '../../search/sweepResult.js';
import { recordedDeployment } from '../roles.js';
import { FRONTEND_HTTP_PORT } from './frontendArgs.js';
import { shellQuote } from './launchScripts.js';
import { unflaggedComment, type UnflaggedSetting } from './unflagged.js';

export interface BenchPlan {
  args: string[];
  notes: UnflaggedSetting[];
  /** Absolute trace path the replay read (trace workloads), overridable with $TRACE. */
  trace: string | null;
}

export function benchPlan(result: SweepResult, row: CandidateRow): BenchPlan {
  const d = recordedDeployment(row);
  const w = WorkloadSchema.parse(result.question.workload);
  const a = ['profile', '--model', d.backend_deployment.model_name, '--url', `http://localhost:${FRONTEND_HTTP_PORT}`, '--endpoint-type', 'chat', '--streaming', '--random-seed', String(w.random_seed)];
  const notes: UnflaggedSetting[] = [];
  if (w.trace_path !== undefined) {
    a.push('--input-file', '$TRACE', '--custom-dataset-type', 'mooncake_trace');
    if (w.replay_concurrency !== undefined) a.push('--concurrency', String(w.replay_concurrency));
    else a.push('--fixed-schedule');
    if (w.arrival_speedup_ratio !== 1) notes.push({ setting: 'workload.arrival_speedup_ratio', value: w.arrival_speedup_ratio, why: 'AIPerf replays the trace timestamps as written: divide them by this ratio first' });
    notes.push({ setting: 'workload.trace_block_size', value: w.trace_block_size, why: 'tokens per hash id the trace was written with; AIPerf reads mooncake traces at 512' });
    return { args: a, notes, trace: w.trace_path };
  }
  const isl = w.isl!;
  const osl = w.osl!;
  const r = w.random_range_ratio;
  // Uniform lengths on [r·len, len]: AIPerf draws normals, so match the mean and the spread.
  const mean = (len: number) => Math.round(((Math.max(1, Math.floor(r * len)) + len) / 2));
  const sd = (len: number) => Math.round((len - Math.max(1, Math.floor(r * len))) / Math.sqrt(12));
  a.push('--synthetic-input-tokens-mean', String(mean(isl)), '--synthetic-input-tokens-stddev', String(sd(isl)), '--output-tokens-mean', String(mean(osl)), '--output-tokens-stddev', String(sd(osl)));
  if (r < 1) notes.push({ setting: 'workload.random_range_ratio', value: r, why: 'the replay drew lengths uniformly on [ratio·len, len]; AIPerf draws normals with the same mean and spread' });
  const ratio = w.num_request_ratio!;
  if (w.request_rate !== undefined) {
    a.push('--request-rate', String(w.request_rate), '--arrival-pattern', 'constant', '--request-count', String(syntheticRequestCount(ratio, w.request_rate)));
  } else {
    const c = w.concurrency ?? row.concurrency;
    if (c === null) throw new Error(`${row.id}: a closed-loop workload without a concurrency`);
    a.push('--concurrency', String(c), '--request-count', String(syntheticRequestCount(ratio, c)));
  }
  if (w.shared_prefix_ratio > 0) a.push('--prefix-prompt-length', String(Math.floor(w.shared_prefix_ratio * isl)), '--prefix-prompt-pool-size', String(Math.max(1, w.num_prefix_groups)));
  if (w.turns_per_session > 1) a.push('--conversation-turn-mean', String(w.turns_per_session), '--conversation-turn-stddev', '0', '--conversation-turn-delay-mean', String(w.inter_turn_delay_ms));
  return { args: a, notes, trace: null };
}

export function benchScript(result: SweepResult, row: CandidateRow): string {
  const b = benchPlan(result, row);
  const lines = ['aiperf', ...b.args.map((x) => (x === '$TRACE' ? '"$TRACE"' : shellQuote(x)))];
  // One `--flag [value]` per line, as the launch scripts.
  const out: string[] = [lines[0] + ' ' + lines[1]];
  for (let i = 2; i < lines.length; i++) {
    const pair = lines[i].startsWith('--') && lines[i + 1] !== undefined && !lines[i + 1].startsWith('--');
    out.push(pair ? `${lines[i]} ${lines[++i]}` : lines[i]);
  }
  return (
    `#!/usr/bin/env bash\n# Benchmark the deployed endpoint with the workload ${row.id} was replayed on (AIPerf: pip install aiperf).\n` +
    `# The replay predicted: ${Object.entries(row.metrics ?? {})
      .filter(([k]) => ['output_throughput_tok_s', 'mean_ttft_ms', 'mean_tpot_ms', 'mean_e2e_latency_ms'].includes(k))
      .map(([k, v]) => `${k} ${Number(v.toFixed(2))}`)
      .join(', ')}\n` +
    b.notes.map((n) => `${unflaggedComment(n)}\n`).join('') +
    'set -euo pipefail\n' +
    (b.trace !== null ? `TRACE="\${TRACE:-${b.trace}}"\n` : '') +
    `exec ${out.join(' \\\n  ')}\n`
  );
}
