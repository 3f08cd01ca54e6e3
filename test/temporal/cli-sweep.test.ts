// CLI-level tests of `spica sweep` (and of `spica worker`, behind --detach) against the shared dev server.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { freePort } from '../../src/cli/temporal/free-port.js';
import { describePollers, hasSweepWorker } from '../../src/cli/temporal/task-queue.js';
import { defaultSweepWorkflowId } from '../../src/cli/temporal/workflow-id.js';
import { parseConfigText } from '../../src/config/load.js';
import type { SweepResult } from '../../src/search/sweepResult.js';
import { canonicalJson } from '../../src/config/canonical-json.js';
import { TEST_PAUSE_LINE } from '../../activities/test-pause.js';
import { captureIo, moduleProbe, PARETO_CONFIG_YAML, spawnSpica, TINY_CONFIG_YAML, uniqueTaskQueue, useTestTemporal, writeTempConfig } from './harness.js';

const t = useTestTemporal();

describe('spica sweep', () => {
  it('runs a sweep against --address with an in-process worker; reruns get a -2 suffix', async () => {
    const file = writeTempConfig(PARETO_CONFIG_YAML);
    const baseId = defaultSweepWorkflowId(parseConfigText(PARETO_CONFIG_YAML), 11);
    expect(baseId).toMatch(/^spica-[0-9a-f]{12}-11$/);
    const taskQueue = uniqueTaskQueue('cli-sweep');

    const first = captureIo();
    expect(await main(['sweep', file, '--address', t.address, '--task-queue', taskQueue, '--json'], first.io)).toBe(0);
    const result = JSON.parse(first.out.stdout) as SweepResult; // exactly one JSON document
    expect(result.sweep_id).toBe(baseId);
    expect(result.question.goal.target).toBe('pareto');
    expect(result.branches.map((b) => b.deployment_mode)).toEqual(['agg', 'disagg']);
    expect(first.out.stderr).toContain(`workflow id: ${baseId}`);
    // Not a TTY: plain progress lines on stderr, ending with the finished sweep.
    expect(first.out.stderr).toMatch(/^progress: .*trials \d+\/\d+/m);

    const second = captureIo();
    expect(await main(['sweep', file, '--address', t.address, '--task-queue', taskQueue], second.io)).toBe(0);
    expect(second.out.stderr).toContain(`workflow id: ${baseId}-2`);
    expect(second.out.stdout).toContain(`sweep ${baseId}-2:`);
    expect(second.out.stdout).toMatch(/^Pareto front \(\d+\)/m);
    expect(second.out.stdout).toMatch(/^trials: \d+ — \d+ feasible/m);
    expect(second.out.stdout).toMatch(/^ {2}agg \(vllm\): 1 round\(s\)/m);

    // An explicit --id already used is bad input (exit 2), after the in-process worker was created.
    const third = captureIo();
    expect(await main(['sweep', file, '--address', t.address, '--task-queue', taskQueue, '--id', baseId], third.io)).toBe(2);
    expect(third.out.stderr).toContain(`workflow id '${baseId}' was already used`);
  });

  it('--local runs the same sweep without a server and prints the same SweepResult; --out writes the files', async () => {
    const file = writeTempConfig(PARETO_CONFIG_YAML);
    const outDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'spica-out-')), 'res');
    const taskQueue = uniqueTaskQueue('cli-local');
    const viaTemporal = captureIo();
    expect(await main(['sweep', file, '--address', t.address, '--task-queue', taskQueue, '--id', `local-cmp-${taskQueue}`, '--json'], viaTemporal.io)).toBe(0);
    const viaLocal = captureIo();
    // An unreachable address proves --local never connects.
    expect(await main(['sweep', file, '--local', '--json', '--out', outDir, '--address', '127.0.0.1:1'], viaLocal.io)).toBe(0);
    const a = JSON.parse(viaTemporal.out.stdout) as SweepResult;
    const b = JSON.parse(viaLocal.out.stdout) as SweepResult;
    expect(b.sweep_id).toBeNull();
    expect({ ...b, sweep_id: a.sweep_id, counts: { ...b.counts, cache_hits: 0 } }).toEqual({ ...a, counts: { ...a.counts, cache_hits: 0 } });
    // Byte for byte too, key order included (scripts diff result files): only cache_hit may differ.
    const bytes = (r: SweepResult) => JSON.stringify(r.candidates.map((c) => ({ ...c, cache_hit: false })));
    expect(bytes(b)).toBe(bytes(a));
    expect(JSON.parse(readFileSync(path.join(outDir, 'result.json'), 'utf8'))).toEqual(b);
    expect(readFileSync(path.join(outDir, 'candidates.csv'), 'utf8').split('\n').length).toBeGreaterThan(b.candidates.length);
  });

  it('rejects a bad config with exit 2 before touching Temporal', async () => {
    const file = writeTempConfig(PARETO_CONFIG_YAML.replace('gpu_budget: 2', 'gpu_budget: zero'));
    const { io, out } = captureIo();
    expect(await main(['sweep', file, '--address', '127.0.0.1:1'], io)).toBe(2);
    expect(out.stderr).toContain('search_space.gpu_budget');
  });

  it('--detach exits 3 with a hint when no worker polls the task queue', async () => {
    const file = writeTempConfig(PARETO_CONFIG_YAML);
    const { io, out } = captureIo();
    const code = await main(['sweep', file, '--address', t.address, '--detach', '--task-queue', uniqueTaskQueue('nobody')], io);
    expect(code).toBe(3);
    expect(out.stderr).toMatch(/spica worker/);
    expect(out.stdout).toBe('');
  });

  it('--detach exits 3 when no server answers', async () => {
    const file = writeTempConfig(PARETO_CONFIG_YAML);
    const { io, out } = captureIo();
    expect(await main(['sweep', file, '--address', `127.0.0.1:${await freePort()}`, '--detach'], io)).toBe(3);
    expect(out.stderr).toMatch(/spica server/);
  });

  it('--detach returns the id when a `spica worker` polls; the worker runs it and stops on SIGTERM', async () => {
    const file = writeTempConfig(PARETO_CONFIG_YAML);
    const taskQueue = uniqueTaskQueue('detach');
    const id = `detached-${taskQueue}`;
    const worker = spawnSpica(['worker', '--address', t.address, '--task-queue', taskQueue, '--concurrency', '2']);
    try {
      // The server lists a poller once the worker's first long-poll arrived (after bundling).
      for (let i = 0; i < 600 && !hasSweepWorker(await describePollers(t.connection, t.namespace, taskQueue)); i++) {
        if (worker.child.exitCode !== null) throw new Error(`spica worker exited: ${worker.output().stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const { io, out } = captureIo();
      expect(await main(['sweep', file, '--address', t.address, '--detach', '--task-queue', taskQueue, '--id', id], io)).toBe(0);
      expect(out.stdout.trim()).toBe(id);
      const result = (await t.client.workflow.getHandle(id).result()) as SweepResult;
      expect(result.sweep_id).toBe(id);
    } finally {
      worker.child.kill('SIGTERM');
    }
    expect(await worker.exited).toBe(0);
    expect(worker.output().stderr).toMatch(/shutting down/);
  });
});

// A thorough sweep of ~320 trials with millisecond replays: a SweepResult of ~650 KB, past Temporal's
// payload-size warning threshold (512 KB) (whose warning used to land on stdout ahead of the JSON).
const LARGE_RESULT_YAML = `search_space:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  hardware_sku: h100_sxm
  gpu_budget: 2
  deployment_mode: [agg]
  backend: [vllm]
  agg_max_num_seqs: [256, 512, 1024]
  agg_max_num_batched_tokens: [8192, 16384, 32768]
  router_mode: [kv_router, round_robin]
  overlap_score_credit: [1.0]
  prefill_load_scale: [1.0, 2.0]
  router_temperature: [0.0, 0.5, 1.0]
  planner_scaling_policy: [disabled]
workload:
  isl: 128
  osl: 16
  concurrency: 2
  num_request_ratio: 2
goal:
  target: throughput
sweep:
  policy: thorough
  parallel_evals: 16
  seed: 5
`;

/** A trace-workload config whose trace has a malformed line 3 (the config itself is valid). */
function badTraceConfig(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'spica-badtrace-'));
  mkdirSync(path.join(dir, 'traces'));
  writeFileSync(
    path.join(dir, 'traces', 'bad.jsonl'),
    '{"timestamp":0,"input_length":512,"output_length":32,"hash_ids":[1]}\n{"timestamp":5,"input_length":256,"output_length":16,"hash_ids":[2]}\n{"timestamp":9,"input_length":"x"\n',
  );
  const yaml = TINY_CONFIG_YAML.replace(/workload:\n(  .*\n)+/, 'workload:\n  trace_path: traces/bad.jsonl\n');
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, yaml);
  return file;
}

describe('clean output and failures that say why', () => {
  it('--json on a large result: stdout is exactly one JSON document; Temporal\'s logs and warnings stay on stderr', async () => {
    const file = writeTempConfig(LARGE_RESULT_YAML);
    const taskQueue = uniqueTaskQueue('cli-large');
    const r = spawnSpica(['sweep', file, '--address', t.address, '--task-queue', taskQueue, '--json']);
    expect(await r.exited, r.output().stderr).toBe(0);
    const { stdout, stderr } = r.output();
    expect(stdout.length).toBeGreaterThan(512 * 1024);
    const result = JSON.parse(stdout) as SweepResult; // throws on anything ahead of or after the document
    expect(result.counts.evaluated).toBeGreaterThan(250);
    expect(stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).not.toContain('MaxListenersExceededWarning');
  }, 240_000);

  it('a malformed trace fails on Temporal as in --local: exit 2 with file:line; `spica result` does not suggest a resume', async () => {
    const file = badTraceConfig();
    const local = captureIo();
    expect(await main(['sweep', file, '--local'], local.io)).toBe(2);
    expect(local.out.stderr).toMatch(/bad\.jsonl:3: /);
    const taskQueue = uniqueTaskQueue('cli-badtrace');
    const id = `badtrace-${taskQueue}`;
    const viaTemporal = captureIo();
    expect(await main(['sweep', file, '--address', t.address, '--task-queue', taskQueue, '--id', id], viaTemporal.io)).toBe(2);
    expect(viaTemporal.out.stderr).toMatch(/\(TraceFormatError\): .*bad\.jsonl:3: /);
    const result = captureIo();
    expect(await main(['result', id, '--address', t.address], result.io)).toBe(2);
    expect(result.out.stderr).toMatch(/bad\.jsonl:3: /);
    expect(result.out.stderr).not.toContain('spica resume');
    // validate runs the same trace check.
    const validate = captureIo();
    expect(await main(['validate', file], validate.io)).toBe(2);
    expect(validate.out.stderr).toMatch(/bad\.jsonl:3: /);
  });

  it('a SKU without a perf database: validate and sweep on Temporal exit 2 with NoPerfDatabase', async () => {
    const file = writeTempConfig(TINY_CONFIG_YAML.replace('h100_sxm', 'a100_sxm'));
    const validate = captureIo();
    expect(await main(['validate', file], validate.io)).toBe(2);
    expect(validate.out.stderr).toContain('NoPerfDatabase');
    const viaTemporal = captureIo();
    expect(await main(['sweep', file, '--address', t.address, '--task-queue', uniqueTaskQueue('cli-noperf')], viaTemporal.io)).toBe(2);
    expect(viaTemporal.out.stderr).toContain('NoPerfDatabase');
  });

  it('--local runs replays on the thread pool and honours max_eval_seconds (a hung replay is timed_out)', async () => {
    const file = writeTempConfig(TINY_CONFIG_YAML.replace('  seed: 5', '  seed: 5\n  max_eval_seconds: 2'));
    const reference = captureIo();
    expect(await main(['sweep', writeTempConfig(TINY_CONFIG_YAML.replace('  seed: 5', '  seed: 5\n  max_eval_seconds: 2')), '--local', '--json'], reference.io)).toBe(0);
    const victim = (JSON.parse(reference.out.stdout) as SweepResult).candidates.find((c) => !c.cache_hit && c.metrics !== null)!;
    const r = spawnSpica(['sweep', file, '--local', '--json'], { SPICA_TEST_HOOKS: '1', SPICA_TEST_HANG_MATCH: canonicalJson(victim.config) });
    expect(await r.exited, r.output().stderr).toBe(0);
    const result = JSON.parse(r.output().stdout) as SweepResult;
    const hung = result.candidates.filter((c) => canonicalJson(c.config) === canonicalJson(victim.config));
    expect(hung.length).toBeGreaterThanOrEqual(1);
    expect(hung.every((c) => c.status === 'timed_out' && !c.cache_hit)).toBe(true);
    expect(result.counts.timed_out).toBe(hung.length);
  });

  it('--local loads no Temporal SDK module (the process, as a user runs it)', async () => {
    const probe = moduleProbe();
    const r = spawnSpica(['sweep', writeTempConfig(TINY_CONFIG_YAML), '--local', '--json'], { NODE_OPTIONS: probe.nodeOptions });
    expect(await r.exited, r.output().stderr).toBe(0);
    const loaded = probe.loaded(r.output().stderr);
    expect(loaded).toContain(probe.file); // the probe sees the process's CommonJS modules (itself at least)
    expect(loaded.filter((f) => /^@temporalio\/|^@grpc\/|^protobufjs\//.test(f))).toEqual([]);
    expect((JSON.parse(r.output().stdout) as SweepResult).counts.evaluated).toBeGreaterThan(0);
  });

  it('Ctrl-C while the own worker holds a task: it says what it waits for, and a second Ctrl-C quits', async () => {
    // The test hook holds the ask, as a local activity retrying against a store that is down would.
    const r = spawnSpica(['sweep', writeTempConfig(TINY_CONFIG_YAML), '--address', t.address, '--task-queue', uniqueTaskQueue('slow-stop')], {
      SPICA_TEST_HOOKS: '1',
      SPICA_TEST_PAUSE_IN: 'ask',
    });
    try {
      await expect.poll(() => r.output().stderr.includes(`${TEST_PAUSE_LINE} ask`), { timeout: 60_000, interval: 100 }).toBe(true);
      r.child.kill('SIGINT');
      await expect
        .poll(() => r.output().stderr, { timeout: 20_000, interval: 100 })
        .toContain("interrupted: this process's worker finishes the task in hand before it stops (the run stays on the server); Ctrl-C again to quit now");
      r.child.kill('SIGINT');
      const code = await Promise.race([r.exited, new Promise((res) => setTimeout(() => res('still running'), 20_000))]);
      expect(code).not.toBe('still running');
    } finally {
      r.child.kill('SIGKILL');
      await r.exited;
    }
  }, 120_000);
});

