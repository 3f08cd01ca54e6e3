// Coefficient directories the calibration replays with: a copy of the fitted files with the replay
// corrections removed or replaced, so each fitting replay runs through the user path
// (`spica replay --coefficients-dir`) and the runtime only ever reads coefficient files.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearCoefficientsCache, coefficientsSchema, type ReplayOverhead } from '../hardware/perf/coefficients.js';

/** Every `<sku>/<backend>.json` under `dir`, as [sku/backend key, path]. */
function coefficientFiles(dir: string): [string, string][] {
  const out: [string, string][] = [];
  for (const sku of readdirSync(dir).sort()) {
    const d = join(dir, sku);
    if (!statSync(d).isDirectory()) continue;
    for (const f of readdirSync(d).sort()) if (f.endsWith('.json')) out.push([`${sku}/${f.slice(0, -5)}`, join(d, f)]);
  }
  return out;
}

/**
 * A temporary copy of `from` whose files carry `replayOf(key)` as their replay corrections (undefined:
 * none). Edits the JSON as read (validated first) so fields this code does not know survive.
 */
export function coefficientsWith(from: string, replayOf: (key: string) => ReplayOverhead | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), 'spica-coefficients-'));
  cpSync(from, dir, { recursive: true });
  for (const [key, path] of coefficientFiles(dir)) {
    const file = JSON.parse(readFileSync(path, 'utf8')) as { overhead: { replay?: unknown } };
    coefficientsSchema.parse(file);
    const r = replayOf(key);
    if (r) file.overhead.replay = r;
    else delete file.overhead.replay;
    writeFileSync(path, `${JSON.stringify(file)}\n`);
  }
  clearCoefficientsCache();
  return dir;
}

export function removeCoefficients(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  clearCoefficientsCache();
}
