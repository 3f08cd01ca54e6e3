import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { CandidateRow, SweepResult } from '../../src/search/sweepResult.js';
import { makeSweepResult } from './fixture.js';
import { flags, spica } from './deploy-harness.js';

const root = mkdtempSync(join(tmpdir(), 'spica-deploy-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));


function writeResult(name: string, result: unknown): string {
  const path = join(root, name);
  writeFileSync(path, typeof result === 'string' ? result : JSON.stringify(result));
  return path;
}


/** A fake `python3` that records its argv (one file per module), to check the scripts' shell quoting. */
const fakeBin = join(root, 'bin');
mkdirSync(fakeBin);
// With a planner expected, the fake frontend waits (≤ 3 s) until the background planner has
// recorded its argv, so run_frontend.sh's EXIT trap cannot stop it first.
writeFileSync(
  join(fakeBin, 'python3'),
  '#!/bin/sh\nshift\nmod="$1"; shift\nprintf \'%s\\n\' "$@" > "$ARGS_DIR/$mod.args"\nif [ "$mod" = dynamo.frontend ] && [ -n "$EXPECT_PLANNER" ]; then n=0; while [ ! -s "$ARGS_DIR/dynamo.planner.args" ] && [ $n -lt 300 ]; do sleep 0.01; n=$((n+1)); done; fi\nexit 0\n',
  { mode: 0o755 },
);
function scriptArgs(script: string, expectPlanner = false): Record<string, string[]> {
  const dir = mkdtempSync(join(root, 'args-'));
  execFileSync('bash', [script], { env: { PATH: `${fakeBin}:/usr/bin:/bin`, ARGS_DIR: dir, EXPECT_PLANNER: expectPlanner ? '1' : '' } });
  return Object.fromEntries(readdirSync(dir).map((f) => [f.replace(/\.args$/, ''), readFileSync(join(dir, f), 'utf8').split('\n').slice(0, -1)]));
}

const POLICY: Record<string, { tput: boolean; load: boolean; tputS: number | null; loadS: number | null }> = {
  load_180_10: { tput: false, load: true, tputS: null, loadS: 10 },
  hybrid_180_5: { tput: true, load: true, tputS: 180, loadS: 5 },
  '{"enable_load_scaling":true,"enable_throughput_scaling":false,"load_adjustment_interval_seconds":7,"throughput_adjustment_interval_seconds":60}': { tput: false, load: true, tputS: null, loadS: 7 },
};
const FPM: Record<string, [number, number]> = { default: [64, 16], fine: [128, 64], large: [128, 16] };
const SENS: Record<string, [number, number]> = { aggressive: [70, 3], default: [80, 5], conservative: [90, 8] };

function checkWorker(row: CandidateRow, role: 'agg' | 'prefill' | 'decode', svc: Record<string, any>) {
  const pc = row.config.parallel_config as any;
  const g = role === 'agg' ? pc : pc[role];
  const args = (row.deployment!.backend_deployment as any)[`${role}_engine_args`];
  const e = (k: string) => args[k];
  expect(svc.componentType).toBe('worker');
  if (role !== 'agg') expect(svc.subComponentType).toBe(role);
  expect(svc.replicas).toBe(g.replicas);
  expect(Number(svc.resources.limits.gpu)).toBe(g.tp * g.pp * g.attention_dp);
  const c = svc.extraPodSpec.mainContainer;
  expect(c.command).toEqual(['python3', '-m', `dynamo.${row.config.backend}`]);
  const f = flags(c.args);
  const has = (k: string) => f.has(k);
  if (row.config.backend === 'vllm') {
    expect(f.get('--model')).toBe('Qwen/Qwen3-30B-A3B');
    expect(Number(f.get('--tensor-parallel-size'))).toBe(g.tp);
    expect(Number(f.get('--data-parallel-size'))).toBe(g.attention_dp);
    expect(has('--enable-expert-parallel')).toBe(g.moe_ep > 1);
    expect(Number(f.get('--max-num-seqs'))).toBe(e('max_num_seqs'));
    expect(Number(f.get('--max-num-batched-tokens'))).toBe(e('max_num_batched_tokens'));
    expect(Number(f.get('--block-size'))).toBe(e('block_size'));
    expect(Number(f.get('--gpu-memory-utilization'))).toBe(e('gpu_memory_utilization'));
    expect(has('--enable-prefix-caching')).toBe(e('enable_prefix_caching'));
    expect(has('--no-enable-prefix-caching')).toBe(!e('enable_prefix_caching'));
    const mtp = args.nextn;
    if (mtp) expect(JSON.parse(f.get('--speculative-config') as string).num_speculative_tokens).toBe(mtp);
    else expect(has('--speculative-config')).toBe(false);
  } else if (row.config.backend === 'sglang') {
    expect(f.get('--model-path')).toBe('Qwen/Qwen3-30B-A3B');
    expect(Number(f.get('--tp-size'))).toBe(g.tp * g.attention_dp);
    expect(Number(f.get('--dp-size'))).toBe(g.attention_dp);
    expect(Number(f.get('--ep-size'))).toBe(g.moe_ep);
    expect(has('--enable-dp-attention')).toBe(g.attention_dp > 1);
    expect(Number(f.get('--max-running-requests'))).toBe(e('max_num_seqs'));
    expect(Number(f.get('--chunked-prefill-size'))).toBe(e('max_num_batched_tokens'));
    expect(Number(f.get('--page-size'))).toBe(e('block_size'));
    expect(Number(f.get('--mem-fraction-static'))).toBe(e('gpu_memory_utilization'));
    expect(has('--disable-radix-cache')).toBe(!e('enable_prefix_caching'));
    if (role !== 'agg') expect(f.get('--disaggregation-transfer-backend')).toBe('nixl');
  } else {
    expect(f.get('--model-path')).toBe('Qwen/Qwen3-30B-A3B');
    expect(Number(f.get('--tensor-parallel-size'))).toBe(g.tp * g.attention_dp);
    expect(Number(f.get('--moe-expert-parallel-size'))).toBe(g.moe_ep);
    expect(Number(f.get('--max-batch-size'))).toBe(e('max_num_seqs'));
    expect(Number(f.get('--max-num-tokens'))).toBe(e('max_num_batched_tokens'));
    expect(Number(f.get('--kv-block-size'))).toBe(e('block_size'));
    expect(Number(f.get('--kv-cache-free-gpu-memory-fraction'))).toBe(e('gpu_memory_utilization'));
    const o = JSON.parse(f.get('--override-engine-args') as string);
    expect(o.kv_cache_config.enable_block_reuse).toBe(e('enable_prefix_caching'));
    expect(o.enable_attention_dp ?? false).toBe(g.attention_dp > 1);
  }
  expect(f.get('--disaggregation-mode') ?? null).toBe(role === 'agg' ? null : role);
}

function checkFrontend(row: CandidateRow, svc: Record<string, any>) {
  const r = row.deployment!.router;
  const mode = r.router_mode;
  expect(svc.componentType).toBe('frontend');
  expect(svc.extraPodSpec.mainContainer.command).toEqual(['python3', '-m', 'dynamo.frontend']);
  const f = flags(svc.extraPodSpec.mainContainer.args);
  expect(f.get('--router-mode')).toBe(mode === 'kv_router' ? 'kv' : 'round-robin');
  if (mode === 'kv_router') {
    expect(Number(f.get('--router-kv-overlap-score-credit'))).toBe(r.overlap_score_credit);
    expect(Number(f.get('--router-prefill-load-scale'))).toBe(r.prefill_load_scale);
    expect(Number(f.get('--router-temperature'))).toBe(r.router_temperature);
  } else {
    expect(f.has('--router-kv-overlap-score-credit')).toBe(false);
  }
}

function checkPlanner(row: CandidateRow, result: SweepResult, svc: Record<string, any> | undefined) {
  const p = row.config.adapters['dynamo.planner'] as Record<string, any>;
  const policy = p.scaling_policy ?? p.planner_scaling_policy;
  const want = POLICY[policy];
  // The replay runs throughput scaling only under the sla target (goodput_per_gpu here), so every
  // policy with a loop deploys a Planner; `disabled` deploys none.
  if (policy === 'disabled') {
    expect(svc).toBeUndefined();
    expect(row.deployment!.planner.active).toBe(false);
    return;
  }
  expect(svc, `planner for ${row.id}`).toBeDefined();
  expect(svc!.componentType).toBe('planner');
  const f = flags(svc!.extraPodSpec.mainContainer.args);
  const cfg = JSON.parse(f.get('--config') as string);
  expect(cfg.environment).toBe('kubernetes');
  expect(cfg.enable_throughput_scaling).toBe(want.tput);
  expect(cfg.enable_load_scaling).toBe(want.load);
  expect(cfg.throughput_adjustment_interval ?? null).toBe(want.tputS);
  expect(cfg.load_adjustment_interval ?? null).toBe(want.loadS);
  const [samples, bucket] = FPM[p.fpm_sampling ?? p.planner_fpm_sampling];
  expect([cfg.max_num_fpm_samples, cfg.fpm_sample_bucket_size]).toEqual([samples, bucket]);
  const [down, obs] = SENS[p.load_sensitivity ?? p.planner_load_sensitivity];
  expect([cfg.load_scaling_down_sensitivity, cfg.load_min_observations]).toEqual([down, obs]);
  expect(cfg.max_gpu_budget).toBe(result.question.gpu_budget);
  expect(cfg.min_endpoint).toBe(p.min_endpoint ?? 1);
  expect(cfg.mode).toBe(row.config.deployment_mode);
  expect(cfg.optimization_target).toBe('sla'); // goodput_per_gpu goal
  // dynamo-facts §5 payload names.
  expect([cfg.ttft_ms, cfg.itl_ms]).toEqual([2000, 40]);
  if (want.tput) expect(cfg.load_predictor).toBe(row.deployment!.planner.load_predictor_spec.load_predictor);
  else expect(cfg.load_predictor).toBeUndefined();
  const pc = row.config.parallel_config as any;
  const dec = 'prefill' in pc ? pc.decode : pc;
  expect(cfg.decode_engine_num_gpu).toBe(dec.tp * dec.attention_dp);
  if ('prefill' in pc) expect(cfg.prefill_engine_num_gpu).toBe(pc.prefill.tp * pc.prefill.attention_dp);
}

describe('spica deploy: every feasible candidate, all backends, agg and disagg', () => {
  const result = makeSweepResult('single');
  const path = writeResult('single.json', result);
  const feasible = result.candidates.filter((c) => c.status === 'feasible');
  const scripted = new Set<string>();
  const combos = new Set(feasible.map((c) => `${c.config.deployment_mode}/${c.config.backend}`));

  it('covers vllm, sglang, trtllm agg and vllm, sglang disagg, with and without planner/KV router/MTP', () => {
    expect([...combos].sort()).toEqual(['agg/sglang', 'agg/trtllm', 'agg/vllm', 'disagg/sglang', 'disagg/vllm']);
    expect(feasible.some((c) => (c.config.adapters['dynamo.planner'] as any).planner_scaling_policy === 'disabled')).toBe(true);
    expect(feasible.some((c) => c.deployment!.planner.active)).toBe(true);
  });

  it.each(feasible.map((c) => [c.id, `${c.config.deployment_mode}/${c.config.backend}`]))('%s (%s): manifest and scripts match the candidate', async (id) => {
    const row = feasible.find((c) => c.id === id)!;
    const out = join(root, id);
    const r = await spica(['deploy', path, '--candidate', id, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(readdirSync(out).length);
    const doc = parse(readFileSync(join(out, 'k8s_deploy.yaml'), 'utf8'));
    expect(doc.apiVersion).toBe('nvidia.com/v1alpha1');
    expect(doc.kind).toBe('DynamoGraphDeployment');
    expect(doc.metadata.name).toBe(`spica-${id}`);
    expect(doc.metadata.annotations['spica/candidate']).toBe(id);
    const services = doc.spec.services as Record<string, any>;
    const prefix = { vllm: 'Vllm', sglang: 'Sglang', trtllm: 'Trtllm' }[row.config.backend];
    const roles = row.config.deployment_mode === 'agg' ? (['agg'] as const) : (['prefill', 'decode'] as const);
    const names = roles.map((role) => `${prefix}${role === 'agg' ? 'Worker' : role === 'prefill' ? 'PrefillWorker' : 'DecodeWorker'}`);
    roles.forEach((role, i) => checkWorker(row, role, services[names[i]]));
    checkFrontend(row, services.Frontend);
    checkPlanner(row, result, services.Planner);
    expect(Object.keys(services).sort()).toEqual(['Frontend', ...names, ...(services.Planner ? ['Planner'] : [])].sort());
    // GPUs of the manifest add up to the candidate's.
    const total = names.reduce((s, n) => s + services[n].replicas * Number(services[n].resources.limits.gpu), 0);
    expect(total).toBe(row.used_gpus);

    // Launch scripts: bash, strict mode, and exactly the manifest's command lines after shell parsing
    // (executed for one candidate per backend/mode/planner combination: bash spawns are not free).
    const combo = `${row.config.deployment_mode}/${row.config.backend}/${Boolean(services.Planner)}`;
    expect(readdirSync(out).sort()).toEqual(['bench_run.sh', 'k8s_deploy.yaml', ...names.map((_, i) => `run_${i}.sh`), 'run_frontend.sh'].sort());
    if (scripted.has(combo)) return;
    scripted.add(combo);
    names.forEach((n, i) => {
      const script = join(out, `run_${i}.sh`);
      const text = readFileSync(script, 'utf8');
      expect(text.startsWith('#!/usr/bin/env bash\n')).toBe(true);
      expect(text).toContain('set -euo pipefail');
      expect(scriptArgs(script)[`dynamo.${row.config.backend}`]).toEqual(services[n].extraPodSpec.mainContainer.args);
    });
    const fe = scriptArgs(join(out, 'run_frontend.sh'), Boolean(services.Planner));
    expect(fe['dynamo.frontend']).toEqual(services.Frontend.extraPodSpec.mainContainer.args);
    if (services.Planner) {
      // Same PlannerConfig, except the bare-metal connector.
      const [flag, json] = fe['dynamo.planner'];
      expect(flag).toBe('--config');
      expect(JSON.parse(json)).toEqual({ ...JSON.parse(services.Planner.extraPodSpec.mainContainer.args[1]), environment: 'virtual' });
    }
  });

  it('defaults to the top-ranked candidate for a single-objective result', async () => {
    const out = join(root, 'default-top');
    const r = await spica(['deploy', path, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const doc = parse(readFileSync(join(out, 'k8s_deploy.yaml'), 'utf8'));
    expect(doc.metadata.annotations['spica/candidate']).toBe((result.views as { top_n: string[] }).top_n[0]);
  });
});

describe('spica deploy: input errors exit 2 and say why', () => {
  const pareto = makeSweepResult('pareto');
  const paretoPath = writeResult('pareto.json', pareto);
  const front = (pareto.views as { pareto_front: string[] }).pareto_front;

  it('a Pareto result without --candidate deploys every front member into its own folder, with front.md', async () => {
    const out = join(root, 'p0');
    const r = await spica(['deploy', paretoPath, '--out', out, '--name', 'svc']);
    expect(r.code, r.stderr).toBe(0);
    expect(front.length).toBeGreaterThan(1);
    const index = readFileSync(join(out, 'front.md'), 'utf8');
    for (const id of front) {
      const doc = parse(readFileSync(join(out, id, 'k8s_deploy.yaml'), 'utf8'));
      expect(doc.metadata.annotations['spica/candidate']).toBe(id);
      expect(doc.metadata.name).toBe(`svc-${id}`);
      expect(index).toContain(`| ${id}/ |`);
    }
    expect(r.stderr).toContain(`the Pareto front, ${front.length} candidate(s)`);
  });

  it('a Pareto result with a front id deploys it', async () => {
    const out = join(root, 'p1');
    const r = await spica(['deploy', paretoPath, '--candidate', front[0], '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(parse(readFileSync(join(out, 'k8s_deploy.yaml'), 'utf8')).metadata.annotations['spica/candidate']).toBe(front[0]);
  });

  it('an unknown id lists the valid ones', async () => {
    const r = await spica(['deploy', paretoPath, '--candidate', 'candidate-999999']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown candidate 'candidate-999999'");
    expect(r.stderr).toContain(front[0]);
  });

  it('an infeasible candidate is refused with its reason', async () => {
    const bad = pareto.candidates.find((c) => c.status === 'infeasible')!;
    const r = await spica(['deploy', paretoPath, '--candidate', bad.id]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${bad.id} is infeasible`);
    expect(r.stderr).toContain(bad.reason!);
  });

  it('bad JSON, a schema-invalid result and a missing file are named', async () => {
    const a = await spica(['deploy', writeResult('broken.json', '{"schema_version": "1.0",')]);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/broken\.json is not valid JSON/);
    const invalid = structuredClone(pareto) as any;
    invalid.candidates[0].used_gpus = 'four';
    const b = await spica(['deploy', writeResult('invalid.json', invalid), '--candidate', front[0]]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/invalid\.json is not a SweepResult v1:\n\s+candidates\.0\.used_gpus:/);
    const c = await spica(['deploy', join(root, 'nope.json')]);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain('no such file');
  });

  it('nothing feasible exits 1', async () => {
    const empty = structuredClone(makeSweepResult('single'));
    empty.views = { top_n: [] };
    const r = await spica(['deploy', writeResult('empty.json', empty)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('nothing feasible');
  });
});
