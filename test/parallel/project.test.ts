import { describe, expect, it } from 'vitest';
import { projectParallel } from '../../src/parallel/project.js';
import { defaultRequest, encodeConfig, latentSpace, type LatentValue } from '../../src/parallel/latent.js';
import { enumerateBranch } from '../../src/parallel/enumerate.js';
import { compareConfigs, configId, type ParallelPool } from '../../src/parallel/pool.js';
import { InputError } from '../../src/errors.js';
import type { Backend } from '../../src/model/arch.js';
import { BACKENDS } from '../../src/model/arch.js';
import type { DeploymentMode, ParallelConfig } from '../../src/parallel/shape.js';
import { ampleKv, denseFacts, group, hugeMoeFacts, moeFacts, poolOf, prng } from './fixtures.js';

// The seed's worked example: a 32-GPU disagg branch with configs A and B for one backend.
const A = { prefill: group({ tp: 4, moe_ep: 4, replicas: 2 }), decode: group({ tp: 8, moe_ep: 8, replicas: 1 }) };
const B = { prefill: group({ tp: 4, moe_ep: 4, replicas: 1 }), decode: group({ tp: 8, moe_tp: 8, replicas: 3 }) };
const example = poolOf('disagg', 32, true, [A, B]);

describe('projectParallel — seed worked example', () => {
  it("A's numbers with decode FFN mode tp project to B (mode match beats numeric distance)", () => {
    const p = projectParallel(example, 'disagg', 'vllm', {
      used_gpu_ratio: 0.5,
      prefill_gpu_share: 0.5,
      prefill_num_gpus_per_engine_target: 4,
      decode_num_gpus_per_engine_target: 8,
      prefill_attention_mode: 'tp',
      decode_attention_mode: 'tp',
      prefill_ffn_mode: 'ep',
      decode_ffn_mode: 'tp',
    });
    expect(p.parallel_config).toEqual(B);
    expect(p.mode_projected).toBe(false);
    expect(p.actual.used_gpu_ratio).toBe(0.875);
    expect(p.actual.prefill_gpu_share as number).toBeCloseTo(0.143, 3);
    expect(p.actual.decode_ffn_mode).toBe('tp');
    expect((p.parallel_config as typeof B).prefill.replicas + (p.parallel_config as typeof B).decode.replicas).toBe(4);
    // Both ratio and share sit a full span away: (1)² + (1)².
    expect(p.distance).toBeCloseTo(2, 12);
  });

  it('the same numbers with decode FFN mode ep project to A at distance 0', () => {
    const p = projectParallel(example, 'disagg', 'vllm', { used_gpu_ratio: 0.5, prefill_gpu_share: 0.5, decode_ffn_mode: 'ep' });
    expect(p.parallel_config).toEqual(A);
    expect(p.distance).toBe(0);
    expect(p.requested).toMatchObject({ prefill_num_gpus_per_engine_target: 4, decode_attention_mode: 'tp', prefill_ffn_mode: 'ep' });
  });

  it('records a mode fallback when no config realizes the requested modes', () => {
    const p = projectParallel(example, 'disagg', 'vllm', { decode_attention_mode: 'dp', decode_ffn_mode: 'tp' });
    expect(p.mode_projected).toBe(true);
    expect(p.parallel_config).toEqual(B); // one mismatch (attention) beats two
  });
});

describe('projectParallel — rules', () => {
  it('missing keys take defaults; unknown keys and bad values are errors', () => {
    const p = projectParallel(example, 'disagg', 'vllm', {});
    expect(p.requested).toEqual(defaultRequest(example, 'disagg'));
    expect(() => projectParallel(example, 'disagg', 'vllm', { agg_attention_mode: 'tp' })).toThrow(InputError);
    expect(() => projectParallel(example, 'disagg', 'vllm', { tp: 4 })).toThrow(/unknown disagg latent feature 'tp'/);
    expect(() => projectParallel(example, 'disagg', 'vllm', { decode_ffn_mode: 'dp' })).toThrow(/decode_ffn_mode must be one of ep \| tp/);
    expect(() => projectParallel(example, 'disagg', 'vllm', { decode_num_gpus_per_engine_target: 0 })).toThrow(/positive finite number/);
    expect(() => projectParallel(example, 'disagg', 'vllm', { used_gpu_ratio: 'x' })).toThrow(/finite number/);
  });

  it('filters by backend first, even when another backend has an exact match', () => {
    const p = poolOf('agg', 8, false, [group({ tp: 2, replicas: 4 }), group({ tp: 8 })], [['vllm'], ['sglang']]);
    const r = projectParallel(p, 'agg', 'vllm', { agg_num_gpus_per_engine_target: 8 });
    expect(r.parallel_config).toEqual(group({ tp: 2, replicas: 4 }));
    // A single-config backend pool: zero span everywhere, distance 0.
    expect(r.distance).toBe(0);
    expect(() => projectParallel(p, 'agg', 'trtllm', {})).toThrow(/backend 'trtllm' has no legal agg parallel config/);
  });

  it('normalizes log2 engine sizes and linear ratios by their span in the backend pool', () => {
    const p = poolOf('agg', 16, false, [group({ tp: 1, replicas: 4 }), group({ tp: 4, replicas: 4 }), group({ tp: 16 })]);
    // Request size 8 (log2 3), ratio 0.25: tp4×4 → ((2-3)/4)² + ((1-0.25)/0.75)² = 1/16 + 1;
    // tp1×4 → (3/4)² + 0 = 9/16; tp16 → (1/4)² + 1 = 17/16.
    const r = projectParallel(p, 'agg', 'vllm', { agg_num_gpus_per_engine_target: 8, used_gpu_ratio: 0.25 });
    expect(r.parallel_config).toEqual(group({ tp: 1, replicas: 4 }));
    expect(r.distance).toBeCloseTo(9 / 16, 12);
  });

  it('breaks distance ties by the lexicographic shape-and-replica key', () => {
    // Sizes 2 and 8 sit equally far (in log2) from a request of 4; same ratio.
    const p = poolOf('agg', 8, false, [group({ tp: 8 }), group({ tp: 2, replicas: 4 })]);
    const r = projectParallel(p, 'agg', 'vllm', { agg_num_gpus_per_engine_target: 4 });
    expect(r.parallel_config).toEqual(group({ tp: 2, replicas: 4 }));
    // Member order in the pool does not matter.
    const reversed: ParallelPool = { ...p, members: [...p.members].reverse() };
    expect(projectParallel(reversed, 'agg', 'vllm', { agg_num_gpus_per_engine_target: 4 }).parallel_config).toEqual(group({ tp: 2, replicas: 4 }));
  });

  it('a one-config pool bypasses projection', () => {
    const p = poolOf('agg', 16, true, [group({ tp: 4, moe_ep: 4, replicas: 2 })]);
    const r = projectParallel(p, 'agg', 'vllm', { agg_attention_mode: 'dp' });
    expect(r).toMatchObject({ distance: 0, mode_projected: false, parallel_config: group({ tp: 4, moe_ep: 4, replicas: 2 }) });
    expect(r.actual).toEqual({ used_gpu_ratio: 0.5, agg_num_gpus_per_engine_target: 4, agg_attention_mode: 'tp', agg_ffn_mode: 'ep' });
  });

  it('an FFN mode requested on a dense pool compares against the canonical tp', () => {
    const p = poolOf('agg', 8, false, [group({ tp: 2 }), group({ tp: 4 })]);
    expect(projectParallel(p, 'agg', 'vllm', { agg_ffn_mode: 'ep' }).mode_projected).toBe(true);
    expect(projectParallel(p, 'agg', 'vllm', { agg_ffn_mode: 'tp' }).mode_projected).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// Property tests over seeded random pools and requests.

function randomPool(rand: () => number, mode: DeploymentMode): ParallelPool {
  const facts = rand() < 0.5 ? moeFacts : rand() < 0.5 ? hugeMoeFacts : denseFacts;
  // Disagg pools grow quadratically with the budget; keep them small so the suite stays fast.
  const gpuBudget = (mode === 'agg' ? [4, 8, 12, 16, 24] : [4, 6, 8, 12, 16])[Math.floor(rand() * 5)];
  const minGpuBudget = 1 + Math.floor(rand() * (gpuBudget / 2));
  const backends = BACKENDS.filter(() => rand() < 0.7);
  if (backends.length === 0) backends.push('vllm');
  if (mode === 'disagg' && !backends.some((b) => b !== 'trtllm')) backends.push('sglang');
  const full = enumerateBranch({ facts, kvTokensPerRank: ampleKv, gpuBudget, minGpuBudget }, mode, backends);
  // Random sub-pool (keeps order), at least one member: pools are not always whole enumerations.
  const members = full.members.filter(() => rand() < 0.3);
  return { mode, gpuBudget, isMoe: full.isMoe, members: members.length > 0 ? members : [full.members[0]] };
}

function randomRequest(rand: () => number, pool: ParallelPool, mode: DeploymentMode): Record<string, LatentValue> {
  const space = latentSpace(pool, mode);
  const req: Record<string, LatentValue> = {};
  for (const f of space.features) {
    if (rand() < 0.2) continue; // leave some to defaults
    if (f.kind === 'continuous') req[f.name] = f.range[0] + rand() * (f.range[1] - f.range[0]) * 1.2 - 0.1;
    else if (f.kind === 'discrete') req[f.name] = 2 ** (rand() * 5);
    else req[f.name] = f.values[Math.floor(rand() * f.values.length)];
  }
  return req;
}

const backendsOf = (pool: ParallelPool): Backend[] => BACKENDS.filter((b) => pool.members.some((m) => m.backends.includes(b)));

describe('projectParallel — properties', () => {
  for (const mode of ['agg', 'disagg'] as const) {
    it(`${mode}: returns a member of the backend-filtered pool, purely`, () => {
      const rand = prng(mode === 'agg' ? 11 : 23);
      for (let trial = 0; trial < 25; trial++) {
        const pool = randomPool(rand, mode);
        const req = randomRequest(rand, pool, mode);
        for (const backend of backendsOf(pool)) {
          const p = projectParallel(pool, mode, backend, req);
          const hit = pool.members.find((m) => configId(m.config) === configId(p.parallel_config));
          expect(hit, 'projection left the pool').toBeDefined();
          expect(hit!.backends).toContain(backend);
          // Pure: same inputs, same output, also on a structurally equal copy and after other calls.
          const copy: ParallelPool = JSON.parse(JSON.stringify(pool));
          expect(projectParallel(copy, mode, backend, { ...req })).toEqual(p);
          expect(p.actual).toEqual(encodeConfig(p.parallel_config, mode, pool.gpuBudget, pool.isMoe));
          expect(p.distance).toBeGreaterThanOrEqual(0);
        }
      }
    });

    it(`${mode}: an exact request for any member returns it, or its lexicographically smallest twin`, () => {
      const rand = prng(mode === 'agg' ? 5 : 7);
      let uniqueHits = 0;
      for (let trial = 0; trial < 25; trial++) {
        const pool = randomPool(rand, mode);
        for (const backend of backendsOf(pool)) {
          const legal = pool.members.filter((m) => m.backends.includes(backend));
          // "Exact" = identical latent features; members sharing them are indistinguishable, and the
          // tie-break must pick the smallest key among them.
          const byFeatures = new Map<string, ParallelConfig[]>();
          for (const o of legal) {
            const k = JSON.stringify(encodeConfig(o.config, mode, pool.gpuBudget, pool.isMoe));
            byFeatures.set(k, [...(byFeatures.get(k) ?? []), o.config]);
          }
          for (const m of legal.slice(0, 30)) {
            const features = encodeConfig(m.config, mode, pool.gpuBudget, pool.isMoe);
            const p = projectParallel(pool, mode, backend, features);
            const twins = [...byFeatures.get(JSON.stringify(features))!].sort(compareConfigs);
            expect(p.mode_projected).toBe(false);
            expect(p.distance).toBe(0);
            expect(configId(p.parallel_config)).toBe(configId(twins[0]));
            if (twins.length === 1) {
              expect(configId(p.parallel_config)).toBe(configId(m.config));
              uniqueHits++;
            }
          }
        }
      }
      // Enumerated pure-pattern pools are identified uniquely by their features.
      expect(uniqueHits).toBeGreaterThan(100);
    });
  }

  for (const mode of ['agg', 'disagg'] as const) {
    it(`${mode}: the seed's rule checked by brute force: fewest mode mismatches, then the smallest distance, then the smallest key`, () => {
      const rand = prng(mode === 'agg' ? 31 : 37);
      for (let trial = 0; trial < 25; trial++) {
        const pool = randomPool(rand, mode);
        if (pool.members.length < 2) continue;
        const space = latentSpace(pool, mode);
        for (let r = 0; r < 6; r++) {
          const req = randomRequest(rand, pool, mode);
          const want = { ...defaultRequest(pool, mode), ...req };
          for (const backend of backendsOf(pool)) {
            const legal = pool.members.filter((m) => m.backends.includes(backend));
            const enc = legal.map((m) => encodeConfig(m.config, mode, pool.gpuBudget, pool.isMoe));
            const mismatches = enc.map((e) => space.features.filter((f) => f.kind === 'categorical' && (e[f.name] ?? 'tp') !== want[f.name]).length);
            const fewest = Math.min(...mismatches);
            const spans = new Map(
              space.features.flatMap((f) => {
                if (f.kind === 'categorical') return [];
                const t = (v: number) => (f.kind === 'discrete' ? Math.log2(v) : v);
                const vals = enc.map((e) => t(e[f.name] as number));
                const span = Math.max(...vals) - Math.min(...vals);
                return span > 0 ? [[f.name, { t, span }] as const] : [];
              }),
            );
            const dist = enc.map((e) => [...spans].reduce((d, [n, { t, span }]) => d + ((t(e[n] as number) - t(want[n] as number)) / span) ** 2, 0));
            const p = projectParallel(pool, mode, backend, req);
            const i = legal.findIndex((m) => configId(m.config) === configId(p.parallel_config));
            expect(mismatches[i]).toBe(fewest);
            expect(p.mode_projected).toBe(fewest > 0);
            const closest = Math.min(...dist.filter((_, k) => mismatches[k] === fewest));
            expect(dist[i]).toBeLessThanOrEqual(closest + 1e-9);
            // Among the equally close, the smallest key.
            for (let k = 0; k < legal.length; k++)
              if (mismatches[k] === fewest && Math.abs(dist[k] - dist[i]) < 1e-13) expect(compareConfigs(legal[k].config, legal[i].config)).toBeGreaterThanOrEqual(0);
          }
        }
      }
    });
  }

  it('mixed pinned shapes with identical features tie, and the smaller key wins', () => {
    const a = group({ tp: 2, attention_dp: 2, moe_tp: 2, moe_ep: 2 });
    const b = group({ tp: 2, attention_dp: 2, moe_tp: 1, moe_ep: 4 });
    const c = group({ tp: 4, moe_tp: 4 });
    const pool = poolOf('agg', 8, true, [b, c, a]);
    const exactB = encodeConfig(b, 'agg', 8, true);
    expect(exactB).toEqual(encodeConfig(a, 'agg', 8, true));
    expect(projectParallel(pool, 'agg', 'vllm', exactB).parallel_config).toEqual(b); // [2,1,2,1,4] < [2,1,2,2,2]
  });
});
