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

export class ConfigInvalid extends InputError {
  readonly issues: ConfigIssue[];
  readonly source: string;
  constructor(source: string, issues: ConfigIssue[]) {
    const n = issues.length;
    super(
      [`invalid config ${source} (${n} problem${n === 1 ? '' : 's'}):`, ...issues.map((i) => formatIssue(source, i))].join(
        '\n',
      ),
    );
    this.issues = issues;
    this.source = source;
  }
}
