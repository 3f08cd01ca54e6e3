// The result files of a sweep (`spica result --out DIR`, `spica sweep --local --out DIR`):
// result.json (lossless), candidates.csv, report.html.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../errors.js';
import { SweepResultSchema, type SweepResult } from '../search/sweepResult.js';
import { candidatesCsv } from './csv.js';
import { renderReport } from './report/render.js';

export const RESULT_FILE_NAMES = ['result.json', 'candidates.csv', 'report.html'] as const;

export function writeResultFiles(result: SweepResult, outDir: string): { files: string[] } {
  // Validate first: a file set that does not round-trip must not be written half-way.
  const checked = SweepResultSchema.safeParse(result);
  if (!checked.success)
    throw new InputError(`cannot write results: the SweepResult is invalid: ${checked.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const contents: Record<(typeof RESULT_FILE_NAMES)[number], string> = {
    'result.json': `${JSON.stringify(result, null, 2)}\n`,
    'candidates.csv': candidatesCsv(result),
    'report.html': renderReport(result),
  };
  mkdirSync(outDir, { recursive: true });
  const files = RESULT_FILE_NAMES.map((name) => {
    const path = join(outDir, name);
    writeFileSync(path, contents[name]);
    return path;
  });
  return { files };
}
