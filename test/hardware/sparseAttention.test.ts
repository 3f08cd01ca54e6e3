// DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5): the model facts (catalog, config.json), the
// indexer's key cache in the KV budget, and how the pass model composes the indexer and the top-k
// sparse MLA from the perf DB's tables (src/hardware/perf/engine.ts).
import { describe, expect, it } from 'vitest';
import type { ModelArch } from '../../src/model/arch.js';
import { resolveModel } from '../../src/model/catalog.js';
import { parseHfConfig } from '../../src/model/hf-config.js';
import { indexerBytesPerTokenPerLayer, kvBytesPerToken, kvBytesPerTokenPerGpu } from '../../src/model/kv-cache.js';
import { loadSystem } from '../../src/hardware/systems.js';
import type { PassWork } from '../../src/hardware/pass.js';
import { createEnginePerf, sparsePrefillPairs } from '../../src/hardware/perf/engine.js';
import { KERNELS_ONLY_OVERHEAD } from '../../src/hardware/perf/overheadFit.js';
import type { ParallelShape } from '../../src/parallel/shape.js';
import type { Backend } from '../../src/model/arch.js';

const shape: ParallelShape = { tp: 8, pp: 1, attention_dp: 1, moe_tp: 8, moe_ep: 1 };
const decode = (b: number, ctx: number): PassWork => ({ prefillSeqs: 0, prefillTokens: 0, prefillAttnPairs: 0, decodeSeqs: b, decodeContextSum: b * ctx });
const prefill = (s: number): PassWork => ({ prefillSeqs: 1, prefillTokens: s, prefillAttnPairs: (s * s) / 2, decodeSeqs: 0, decodeContextSum: 0 });
const perfOf = (model: ModelArch, backend: Backend = 'sglang', sku = 'h200_sxm') =>
  createEnginePerf({ model, system: loadSystem(sku), backend, shape, quant: 'fp8_block', kvDtype: 'bf16', overhead: { ...KERNELS_ONLY_OVERHEAD, kernelScale: 1, launchCredit: 0 } });

const glm5 = resolveModel('zai-org/GLM-5');
const dense: ModelArch = { ...glm5, sparseAttention: undefined };

describe('DSA model facts', () => {
  it('GLM-5 / 5.1 (and their FP8 / NVFP4 checkpoints) carry the public indexer shape; DeepSeek-V3.2 its own; V3 / R1 none', () => {
    for (const id of ['zai-org/GLM-5', 'zai-org/GLM-5.1', 'zai-org/GLM-5-FP8', 'nvidia/GLM-5-NVFP4', 'zhipuai/GLM-5']) {
      expect(resolveModel(id).sparseAttention).toEqual({ indexHeads: 32, indexHeadDim: 128, topK: 2048 });
    }
    for (const id of ['deepseek-ai/DeepSeek-V3.2', 'nvidia/DeepSeek-V3.2-NVFP4']) {
      expect(resolveModel(id).sparseAttention).toEqual({ indexHeads: 64, indexHeadDim: 128, topK: 2048 });
    }
    for (const id of ['deepseek-ai/DeepSeek-R1', 'deepseek-ai/DeepSeek-V3', 'moonshotai/Kimi-K2.5']) expect(resolveModel(id).sparseAttention).toBeUndefined();
  });

  it('reads index_n_heads / index_head_dim / index_topk from an MLA config.json', () => {
    const cfg = {
      architectures: ['GlmMoeDsaForCausalLM'], num_hidden_layers: 78, hidden_size: 6144, num_attention_heads: 64, num_key_value_heads: 64,
      intermediate_size: 12288, moe_intermediate_size: 2048, n_routed_experts: 256, num_experts_per_tok: 8, n_shared_experts: 1,
      first_k_dense_replace: 3, kv_lora_rank: 512, q_lora_rank: 2048, qk_nope_head_dim: 192, qk_rope_head_dim: 64, v_head_dim: 256,
      vocab_size: 154880, max_position_embeddings: 202752, index_n_heads: 32, index_head_dim: 128, index_topk: 2048,
    };
    expect(parseHfConfig(cfg, 'glm5.json').sparseAttention).toEqual({ indexHeads: 32, indexHeadDim: 128, topK: 2048 });
    const { index_n_heads: _a, index_head_dim: _b, index_topk: _c, ...plain } = cfg;
    expect(parseHfConfig(plain, 'plain.json').sparseAttention).toBeUndefined();
  });

  it("counts the indexer's FP8 keys (128 B + one fp32 scale) per token and layer in the KV bytes, on every TP rank", () => {
    expect(indexerBytesPerTokenPerLayer(glm5)).toBe(132);
    expect(indexerBytesPerTokenPerLayer(dense)).toBe(0);
    expect(kvBytesPerToken(glm5, 'bf16')).toBe(78 * ((512 + 64) * 2 + 132));
    expect(kvBytesPerTokenPerGpu(glm5, 'fp8', { tp: 8, pp: 1 })).toBe(78 * (576 + 132));
    expect(kvBytesPerTokenPerGpu(glm5, 'bf16', { tp: 8, pp: 2 }) - kvBytesPerTokenPerGpu(dense, 'bf16', { tp: 8, pp: 2 })).toBe(39 * 132);
  });
});

describe('sparse prefill pairs', () => {
  it('equals the dense causal count while the context fits in top-k, and caps each query at top-k beyond', () => {
    expect(sparsePrefillPairs(0, 1024, 2048)).toBe(1024 * 512);
    expect(sparsePrefillPairs(1000, 24, 2048)).toBe(24 * (1000 + 12));
    expect(sparsePrefillPairs(5000, 100, 2048)).toBe(100 * 2048);
    // 8192 new tokens: the first 2048 queries see their causal prefix, the other 6144 see 2048 keys.
    expect(sparsePrefillPairs(0, 8192, 2048)).toBe(2048 * 1024 + 6144 * 2048);
    expect(sparsePrefillPairs(0, 8192, 2048)).toBeLessThan(8192 * 4096);
  });
});

describe('DSA in the pass model', () => {
  const attn = (m: ModelArch, b: number, ctx: number) => perfOf(m).breakdown(decode(b, ctx)).decodeAttnMs;

  it('adds the indexer to every decode step: its projections and its scoring of the context', () => {
    const dsaPass = perfOf(glm5).breakdown(decode(8, 1500));
    const densePass = perfOf(dense).breakdown(decode(8, 1500));
    expect(dsaPass.tokenOpsMs).toBeGreaterThan(densePass.tokenOpsMs);
    expect(dsaPass.decodeAttnMs).toBeGreaterThan(densePass.decodeAttnMs);
  });

  it('beyond top-k, the MLA reads top-k latents only: decode attention grows with context by the indexer scoring alone', () => {
    const growDsa = attn(glm5, 64, 32768) - attn(glm5, 64, 8192);
    const growDense = attn(dense, 64, 32768) - attn(dense, 64, 8192);
    expect(growDsa).toBeGreaterThan(0);
    expect(growDsa).toBeLessThan(0.5 * growDense);
    // At a long context the sparse step is cheaper than the dense one.
    expect(attn(glm5, 64, 32768)).toBeLessThan(attn(dense, 64, 32768));
  });

  it('runs prefill within top-k as dense attention, longer prefill sparse with the indexer scoring every pair', () => {
    const pa = (m: ModelArch, s: number, be: Backend = 'sglang') => perfOf(m, be).breakdown(prefill(s)).prefillAttnMs;
    expect(pa(glm5, 1024)).toBeCloseTo(pa(dense, 1024), 9);
    // SGLang's kernel-only tables: the absorbed sparse kernel with 8 heads per GPU padded to 64.
    expect(pa(glm5, 8192)).toBeGreaterThan(pa(dense, 8192));
    // Module-level MLA tables (vLLM): the dense module's utilisation at the sparse pairs, plus the scoring.
    expect(pa(glm5, 8192, 'vllm')).toBeGreaterThan(0);
  });
});

describe('spica explain shows the DSA facts and how they are modelled', () => {
  it('model_facts.sparse_attention for GLM-5, null for a dense-attention model', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { main } = await import('../../src/cli/main.js');
    const dir = mkdtempSync(join(tmpdir(), 'spica-dsa-'));
    const run = async (model: string, ...flags: string[]) => {
      const f = join(dir, `${model.replace('/', '_')}.yaml`);
      writeFileSync(f, `search_space: {model_name: ${model}, hardware_sku: h200_sxm, deployment_mode: [agg], backend: [sglang], quantization: fp8_block}\nworkload: {isl: 8192, osl: 1024, concurrency: 8, num_request_ratio: 1}\n`);
      let stdout = '';
      const code = await main(['explain', f, ...flags], { stdout: (t) => void (stdout += t), stderr: () => {}, isTty: false });
      expect(code).toBe(0);
      return stdout;
    };
    const doc = JSON.parse(await run('zai-org/GLM-5-FP8', '--json'));
    const facts = doc.branches[0].model_facts;
    expect(facts).toMatchObject({ id: 'zai-org/GLM-5-FP8', architecture_class: 'mla-moe' });
    expect(facts.sparse_attention).toMatchObject({ index_heads: 32, index_head_dim: 128, index_topk: 2048, indexer_cache_bytes_per_token_per_layer: 132 });
    expect(facts.sparse_attention.modelled_as).toMatch(/no DSA tables/);
    const text = await run('zai-org/GLM-5-FP8');
    expect(text).toContain('model:    zai-org/GLM-5-FP8 (mla-moe)');
    expect(text).toContain('sparse attention (DSA): indexer 32 heads x 128, top-2048 tokens, indexer cache 132 B/token/layer');
    expect(JSON.parse(await run('deepseek-ai/DeepSeek-R1', '--json')).branches[0].model_facts.sparse_attention).toBeNull();
  });
});
