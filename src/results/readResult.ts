// Loads a result.json written by `spica sweep/result --out`, with errors that name the problem.
import { readFileSync } from 'node:fs';
import { InputError } from '../errors.js';
import { SweepResultSchema, type SweepResult } from '../search/sweepResult.js';

export function parseSweepResult(text: string, source = 'result.json'): SweepResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new InputError(`${source} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = SweepResultSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 8).map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
    const more = parsed.error.issues.length > 8 ? `\n  … ${parsed.error.issues.length - 8} more` : '';
    throw new InputError(`${source} is not a SweepResult v1:\n${issues.join('\n')}${more}`);
  }
  return parsed.data;
}

export function readSweepResult(path: string): SweepResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot read (${(err as Error).message})`);
  }
  return parseSweepResult(text, path);
}
