// Fingerprint of the data the simulator's answers depend on besides its code: the system files
// (systems/*.yaml) and the fitted perf coefficients (systems/coefficients/<sku>/<backend>.json).
// Cached replay results are keyed by it with the simulator version, so a recalibration (or an edited
// system file) never serves results computed with the old numbers. A coefficient file's `provenance`
// (where and when it was fitted) is not part of it: only numbers the simulator reads are.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { defaultCoefficientsDir } from './perf/coefficients.js';
import { defaultSystemsDir } from './systems.js';

function dataFiles(dir: string, keep: (name: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...dataFiles(p, keep));
    else if (keep(e.name)) out.push(p);
  }
  return out;
}

function withoutProvenance(json: string): string {
  const parsed: unknown = JSON.parse(json);
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) delete (parsed as Record<string, unknown>).provenance;
  return JSON.stringify(parsed);
}

/** sha256 (hex) over the relative paths and contents of the system and coefficient files, in path order. */
export function perfDataFingerprint(systemsDir = defaultSystemsDir(), coefficientsDir = defaultCoefficientsDir()): string {
  const h = createHash('sha256');
  const files = [
    ...dataFiles(systemsDir, (n) => n.endsWith('.yaml') || n.endsWith('.yml')).filter((p) => !p.startsWith(coefficientsDir)).map((p) => ['systems', relative(systemsDir, p), p]),
    ...dataFiles(coefficientsDir, (n) => n.endsWith('.json')).map((p) => ['coefficients', relative(coefficientsDir, p), p]),
  ].sort((a, b) => (a[0] + a[1] < b[0] + b[1] ? -1 : 1));
  for (const [root, rel, p] of files) h.update(`${root}/${rel}\0`).update(root === 'coefficients' ? withoutProvenance(readFileSync(p, 'utf8')) : readFileSync(p)).update('\0');
  return h.digest('hex');
}
