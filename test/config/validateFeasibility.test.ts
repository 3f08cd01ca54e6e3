// `spica validate` and `spica explain` run the sweep's own preflight: a config they accept is one
// `spica sweep` accepts, and one the sweep rejects before any replay fails them the same way (exit 2).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

const dir = mkdtempSync(join(tmpdir(), 'spica-validate-feasibility-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function spica(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTty: false });
  return { code, stdout, stderr };
}

const tail = `workload: {isl: 1024, osl: 128, concurrency: 16, num_request_ratio: 4}
goal: {target: throughput}
sweep: {max_rounds: 1, candidates_per_round: 1}
`;
const CASES: [string, string, RegExp][] = [
  ['no perf database for the SKU/backend', `search_space:\n  model_name: meta-llama/Llama-3.1-8B-Instruct\n  hardware_sku: a100_sxm\n  deployment_mode: [agg]\n  backend: [vllm]\n`, /NoPerfDatabase: .*'vllm' on 'a100_sxm'/],
  [
    'a pinned parallel config legal for no backend',
    `search_space:\n  model_name: Qwen/Qwen3-30B-A3B\n  hardware_sku: h200_sxm\n  deployment_mode: [agg]\n  backend: [trtllm]\n  parallel_configs:\n    - {tp: 2, attention_dp: 2, moe_tp: 4}\n`,
    /legal for no backend.*\n\s+trtllm: backend_filter:trtllm/,
  ],
  ['no viable branch (the model fits no shape in the budget)', `search_space:\n  model_name: meta-llama/Llama-3.1-405B-Instruct\n  hardware_sku: h100_sxm\n  gpu_budget: 2\n  deployment_mode: [agg]\n  backend: [vllm]\n`, /NoViableParallelConfig/],
];

describe('validate / explain fail like sweep', () => {
  it.each(CASES)('%s', async (_name, search, message) => {
    const path = join(dir, `${_name.replace(/\W+/g, '-')}.yaml`);
    writeFileSync(path, search + tail);
    for (const cmd of [['validate', path], ['explain', path], ['explain', path, '--json'], ['sweep', path, '--local', '--out', join(dir, 'out')]]) {
      const r = await spica(...cmd);
      expect(r.code, `${cmd.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    }
  });

  it('a config the sweep accepts validates and explains', async () => {
    const path = join(dir, 'ok.yaml');
    writeFileSync(path, `search_space:\n  model_name: meta-llama/Llama-3.1-8B-Instruct\n  hardware_sku: h100_sxm\n  deployment_mode: [agg]\n  backend: [vllm]\n${tail}`);
    expect((await spica('validate', path)).code).toBe(0);
    const ex = await spica('explain', path, '--json');
    expect(ex.code, ex.stderr).toBe(0);
    expect(JSON.parse(ex.stdout).branches.map((b: { deployment_mode: string }) => b.deployment_mode)).toEqual(['agg']);
  });
});
