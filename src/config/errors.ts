// A config that fails validation: every problem at once, each pointing at its YAML path and line.
import { InputError } from '../errors.js';

export interface ConfigIssue {
  /** YAML path, e.g. `search_space.backend[1]`; `(root)` for the document itself. */
  path: string;
  /** 1-based; absent when the config did not come from YAML text. */
  line?: number;
  column?: number;
  /** The value found there, compactly rendered (`nothing` when the key is missing). */
  found: string;
  /** What would have been accepted. */
  allowed: string;
  message: string;
}

export function formatIssue(source: string, issue: ConfigIssue): string {
  const where = issue.line !== undefined ? `${source}:${issue.line}:${issue.column ?? 1}` : source;
  return `${where}: ${issue.path}: ${issue.message} (found: ${issue.found}; allowed: ${issue.allowed})`;
}

/** At most this many problems are printed (and carried in a failure's details); the rest are counted. */
export const MAX_REPORTED_ISSUES = 50;

export class ConfigInvalid extends InputError {
  /** The first MAX_REPORTED_ISSUES problems, in source order. */
  readonly issues: ConfigIssue[];
  /** How many problems there were in all. */
  readonly total: number;
  readonly source: string;
  constructor(source: string, issues: ConfigIssue[]) {
    const n = issues.length;
    const shown = issues.slice(0, MAX_REPORTED_ISSUES);
    super(
      [
        `invalid config ${source} (${n} problem${n === 1 ? '' : 's'}):`,
        ...shown.map((i) => formatIssue(source, i)),
        ...(n > shown.length ? [`… and ${n - shown.length} more`] : []),
      ].join('\n'),
    );
    this.issues = shown;
    this.total = n;
    this.source = source;
  }
}
