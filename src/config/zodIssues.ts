// Turn zod issues into ConfigIssues a user can act on: the path, the value found there and what is
// allowed. Unions are resolved to the branch the value was evidently meant for.
import type { z } from 'zod';
import type { ConfigIssue } from './errors.js';
import { formatConfigPath, type ConfigPath, type Locator } from './yamlLocation.js';

type Issue = z.core.$ZodIssue;
type AnySchema = z.core.$ZodType;

export function renderValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

export function valueAt(root: unknown, path: ConfigPath): unknown {
  let v: unknown = root;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg as string];
  }
  return v;
}

// ── schema introspection (only to list the known keys of an object) ────────────────────────────

interface Def {
  type: string;
  innerType?: AnySchema;
  in?: AnySchema;
  out?: AnySchema;
  shape?: Record<string, AnySchema>;
  element?: AnySchema;
  items?: AnySchema[];
  valueType?: AnySchema;
  options?: AnySchema[];
}
const defOf = (s: AnySchema): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

function unwrap(s: AnySchema): AnySchema {
  for (;;) {
    const d = defOf(s);
    if (d.innerType && ['default', 'prefault', 'optional', 'nullable', 'readonly', 'catch', 'nonoptional'].includes(d.type)) s = d.innerType;
    // A preprocess pipe (transform → schema) is described by its target schema.
    else if (d.type === 'pipe' && d.in) s = defOf(d.in).type === 'transform' && d.out ? d.out : d.in;
    else return s;
  }
}

/** Resolve a union by the raw value's keys: the object option sharing most keys with it. */
function pickOption(options: AnySchema[], raw: unknown): AnySchema | undefined {
  const keys = raw && typeof raw === 'object' ? Object.keys(raw) : [];
  let best: AnySchema | undefined;
  let bestScore = -1;
  for (const o of options) {
    const d = defOf(unwrap(o));
    if (d.type !== 'object' || !d.shape) continue;
    const score = keys.filter((k) => k in d.shape!).length;
    if (score > bestScore) [best, bestScore] = [o, score];
  }
  return best;
}

function objectKeysAt(schema: AnySchema, path: ConfigPath, raw: unknown): string[] {
  let s: AnySchema | undefined = schema;
  let v = raw;
  const step = (seg: PropertyKey): AnySchema | undefined => {
    let d = defOf(unwrap(s!));
    if (d.type === 'union' && d.options) {
      const o = pickOption(d.options, v);
      if (!o) return undefined;
      d = defOf(unwrap(o));
    }
    if (d.type === 'object') return d.shape?.[String(seg)];
    if (d.type === 'array') return d.element;
    if (d.type === 'tuple') return d.items?.[Number(seg)];
    if (d.type === 'record') return d.valueType;
    return undefined;
  };
  for (const seg of path) {
    s = step(seg);
    if (!s) return [];
    v = v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[seg as string] : undefined;
  }
  let d = defOf(unwrap(s));
  if (d.type === 'union' && d.options) {
    const o = pickOption(d.options, v);
    if (!o) return [];
    d = defOf(unwrap(o));
  }
  return d.type === 'object' && d.shape ? Object.keys(d.shape) : [];
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

// ── translation ─────────────────────────────────────────────────────────────────────────────────

const TYPE_NAMES: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
  tuple: 'a [min, max] list',
  record: 'a mapping',
};
const typeName = (t: string): string => TYPE_NAMES[t] ?? t;

function bound(origin: string, cmp: string, n: unknown): string {
  if (origin === 'array') return cmp.startsWith('>') ? `at least ${n} entr${n === 1 ? 'y' : 'ies'}` : `at most ${n} entries`;
  if (origin === 'string') return cmp.startsWith('>') ? `at least ${n} character${n === 1 ? '' : 's'}` : `at most ${n} characters`;
  return `${cmp} ${n}`;
}

/** A branch-root issue that says the value is of another kind altogether (not a near miss). */
function rootMismatch(e: Issue, found: unknown): boolean {
  if (e.code === 'invalid_type') return true;
  // An enum of strings vs. a mapping: the mapping was meant for the other branch.
  if (e.code === 'invalid_value') return !e.values.some((v) => typeof v === typeof found);
  return false;
}

interface Context {
  raw: unknown;
  schema: AnySchema;
  locate?: Locator;
}

export function zodIssuesToConfigIssues(issues: readonly Issue[], ctx: Context): ConfigIssue[] {
  // A value of the wrong type may also fail that path's checks (zod runs a list's min length on a
  // string): the type error says it all.
  const wrongType = new Set(issues.filter((i) => i.code === 'invalid_type').map((i) => JSON.stringify(i.path)));
  return issues
    .filter((i) => i.code === 'invalid_type' || !wrongType.has(JSON.stringify(i.path)))
    .flatMap((i) => translate(i, [], ctx));
}

function make(ctx: Context, path: ConfigPath, message: string, allowed: string, opts: { found?: string; key?: boolean } = {}): ConfigIssue {
  const pos = ctx.locate?.(path, { key: opts.key });
  return {
    path: formatConfigPath(path),
    ...(pos ? { line: pos.line, column: pos.column } : {}),
    found: opts.found ?? renderValue(valueAt(ctx.raw, path)),
    allowed,
    message,
  };
}

function translate(issue: Issue, prefix: ConfigPath, ctx: Context): ConfigIssue[] {
  const path = [...prefix, ...issue.path];
  const found = valueAt(ctx.raw, path);
  switch (issue.code) {
    case 'invalid_type': {
      if (found === undefined) return [make(ctx, path, `missing required key '${String(path[path.length - 1] ?? '')}'`, typeName(issue.expected))];
      return [make(ctx, path, `expected ${typeName(issue.expected)}`, typeName(issue.expected))];
    }
    case 'invalid_value':
      return [make(ctx, path, 'not an allowed value', issue.values.map((v) => (typeof v === 'string' ? v : renderValue(v))).join(', '))];
    case 'too_small': {
      const cmp = issue.inclusive === false ? '>' : '>=';
      const what = bound(issue.origin, cmp, issue.minimum);
      const msg =
        issue.origin === 'string' && issue.minimum === 1 ? 'must not be empty' : issue.origin === 'array' || issue.origin === 'string' ? `needs ${what}` : `must be ${what}`;
      return [make(ctx, path, msg, what)];
    }
    case 'too_big': {
      const cmp = issue.inclusive === false ? '<' : '<=';
      const what = bound(issue.origin, cmp, issue.maximum);
      return [make(ctx, path, issue.origin === 'array' ? `needs ${what}` : `must be ${what}`, what)];
    }
    case 'unrecognized_keys': {
      const known = objectKeysAt(ctx.schema, path, ctx.raw);
      return issue.keys.map((k) => {
        const near = known.filter((c) => editDistance(c, k) <= 2);
        const hint = near.length ? ` (did you mean '${near[0]}'?)` : '';
        return make(ctx, [...path, k], `unknown key '${k}'${hint}`, known.length ? known.join(', ') : 'no other keys', { key: true });
      });
    }
    case 'invalid_union': {
      // Drop branches whose root type did not even match; of the rest take the closest fit.
      const branches = issue.errors
        .map((errs) => ({ errs, mismatch: errs.some((e) => e.path.length === 0 && rootMismatch(e, found)) }))
        .filter((b) => !b.mismatch)
        .sort((a, b) => a.errs.length - b.errs.length);
      if (branches.length === 0) {
        const expected = issue.errors.flatMap((errs) =>
          errs
            .filter((e) => e.path.length === 0)
            .map((e) =>
              e.code === 'invalid_type'
                ? typeName(e.expected)
                : e.code === 'invalid_value'
                  ? `one of ${e.values.map((v) => (typeof v === 'string' ? v : renderValue(v))).join(', ')}`
                  : e.message,
            ),
        );
        const allowed = [...new Set(expected)].join(' or ');
        return [make(ctx, path, `expected ${allowed}`, allowed)];
      }
      return branches[0].errs.flatMap((e) => translate(e, path, ctx));
    }
    case 'custom': {
      const params = (issue.params ?? {}) as { allowed?: string; found?: string };
      return [make(ctx, path, issue.message, params.allowed ?? '-', params.found !== undefined ? { found: params.found } : {})];
    }
    default:
      return [make(ctx, path, issue.message, '-')];
  }
}
