// Hardware SKUs: one `systems/<sku>.yaml` per SKU, in readable units, validated with zod and
// converted to SystemSpec (SI units). A user adds a SKU by dropping a file into the directory.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { InputError } from '../errors.js';
import type { SystemSpec } from './system.js';

const positive = z.number().positive();
const nonNegative = z.number().nonnegative();
const count = z.number().int().positive();

/** The YAML file's shape; units are in the key names (see the header comment of any systems/*.yaml). */
export const SystemFileSchema = z.strictObject({
  sku: z.string().regex(/^[a-z0-9_]+$/, 'lowercase letters, digits and _ only'),
  gpu: z.strictObject({
    memory_gib: positive,
    memory_bw_tb_per_s: positive,
    dense_tflops: z.strictObject({
      fp32: positive.optional(),
      bf16: positive,
      int8: positive.optional(),
      fp8: positive.optional(),
      fp4: positive.optional(),
    }),
    elementwise_bw_efficiency: z.number().gt(0).lte(1),
    elementwise_latency_us: nonNegative,
  }),
  node: z.strictObject({
    gpus_per_node: count,
    gpus_per_rack: count.optional(),
    intra_node_bw_gb_per_s: positive,
    inter_node_bw_gb_per_s: positive,
    inter_rack_bw_gb_per_s: positive.optional(),
    inter_rack_latency_us: nonNegative.optional(),
    pcie_bw_gb_per_s: positive,
    p2p_latency_us: nonNegative,
  }),
  reserved_memory: z.strictObject({
    nccl_mib_by_tp: z.strictObject({ 1: nonNegative, 2: nonNegative, 4: nonNegative, 8: nonNegative }),
    runtime_gib: nonNegative,
  }),
});
export type SystemFile = z.infer<typeof SystemFileSchema>;

const GIB = 2 ** 30;
const MIB = 2 ** 20;

/** Repository `systems/` directory (two levels above this file, in src/ and in a build alike). */
export function defaultSystemsDir(): string {
  return fileURLToPath(new URL('../../systems/', import.meta.url));
}

function yamlFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  if (!existsSync(dir)) return files;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const m = /^(.+)\.ya?ml$/.exec(entry.name);
    if (m) files.set(m[1], join(dir, entry.name));
  }
  return files;
}

/** SKUs available in `systemsDir` (default: the repository's systems/), sorted. */
export function listSystems(opts: { systemsDir?: string } = {}): string[] {
  return [...yamlFiles(opts.systemsDir ?? defaultSystemsDir()).keys()].sort();
}

function toSpec(f: SystemFile): SystemSpec {
  const tf = (v: number | undefined) => (v === undefined ? undefined : Math.round(v * 1e12));
  const gbps = (v: number) => Math.round(v * 1e9);
  const flops: SystemSpec['flops'] = { bf16: tf(f.gpu.dense_tflops.bf16)! };
  for (const key of ['fp32', 'int8', 'fp8', 'fp4'] as const) {
    const v = tf(f.gpu.dense_tflops[key]);
    if (v !== undefined) flops[key] = v;
  }
  const nccl = f.reserved_memory.nccl_mib_by_tp;
  return {
    sku: f.sku,
    memCapacityBytes: Math.round(f.gpu.memory_gib * GIB),
    memBwBps: Math.round(f.gpu.memory_bw_tb_per_s * 1e12),
    flops,
    gpusPerNode: f.node.gpus_per_node,
    gpusPerRack: f.node.gpus_per_rack ?? f.node.gpus_per_node,
    intraNodeBwBps: gbps(f.node.intra_node_bw_gb_per_s),
    interNodeBwBps: gbps(f.node.inter_node_bw_gb_per_s),
    ...(f.node.inter_rack_bw_gb_per_s !== undefined ? { interRackBwBps: gbps(f.node.inter_rack_bw_gb_per_s) } : {}),
    ...(f.node.inter_rack_latency_us !== undefined ? { interRackLatencyS: f.node.inter_rack_latency_us / 1e6 } : {}),
    p2pLatencyS: f.node.p2p_latency_us / 1e6,
    ncclMemBytes: {
      '1': Math.round(nccl[1] * MIB),
      '2': Math.round(nccl[2] * MIB),
      '4': Math.round(nccl[4] * MIB),
      '8': Math.round(nccl[8] * MIB),
    },
    otherMemBytes: Math.round(f.reserved_memory.runtime_gib * GIB),
    memBwEmpiricalScaling: f.gpu.elementwise_bw_efficiency,
    elementwiseLatencyS: f.gpu.elementwise_latency_us / 1e6,
    pcieBwBps: gbps(f.node.pcie_bw_gb_per_s),
  };
}

/** Validate YAML text of one system file; `source` names the file in errors. */
export function parseSystemFile(text: string, source: string): SystemSpec {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new InputError(`${source}: not valid YAML: ${(err as Error).message}`);
  }
  const parsed = SystemFileSchema.safeParse(doc);
  if (!parsed.success) {
    // Every issue, so a misspelled key reports both the unknown name and the missing one.
    const problems = parsed.error.issues.map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join('.') : '(document)';
      return `invalid field '${field}': ${issue.message}`;
    });
    throw new InputError(`${source}: ${problems.join('; ')}`);
  }
  return toSpec(parsed.data);
}

/** Parsed system files by path, with the (mtime, size) they were parsed at: a replay resolves its SKU
 * per candidate, and parsing the YAML each time cost more than the small replays themselves. */
const parsedSystems = new Map<string, { mtimeMs: number; size: number; spec: SystemSpec }>();

function parseSystemFileOnce(path: string): SystemSpec {
  const st = statSync(path);
  const hit = parsedSystems.get(path);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return structuredClone(hit.spec);
  const spec = parseSystemFile(readFileSync(path, 'utf8'), path);
  parsedSystems.set(path, { mtimeMs: st.mtimeMs, size: st.size, spec });
  return structuredClone(spec); // callers own their copy
}

/** Load `systems/<sku>.yaml` (parsed once per process while the file is unchanged); the file's `sku` must match its name. */
export function loadSystem(sku: string, opts: { systemsDir?: string } = {}): SystemSpec {
  const dir = opts.systemsDir ?? defaultSystemsDir();
  const files = yamlFiles(dir);
  const path = files.get(sku);
  if (!path) {
    const known = [...files.keys()].sort();
    throw new InputError(
      `unknown hardware SKU '${sku}'. Available: ${known.length > 0 ? known.join(', ') : '(none)'} ` +
        `(add ${join(dir, `${sku}.yaml`)} to define it)`,
    );
  }
  const spec = parseSystemFileOnce(path);
  if (spec.sku !== sku) throw new InputError(`${path}: invalid field 'sku': '${spec.sku}' does not match the file name '${sku}'`);
  return spec;
}
