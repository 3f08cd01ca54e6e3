// Which build of Spica a worker runs: a hash of everything that decides a sweep's answer — the
// TypeScript of the CLI, activities and workflows, the SKU files, the locked dependencies. Workers
// report it to Temporal as their build id (the Web UI shows it per poller), and a sweep is handed to,
// or run beside, workers of its own build only: another checkout's simulator or optimizer would give
// another answer under this one's name.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './project-paths.js';

/** Project paths (directories walked, or files) whose contents make up the build. */
export const BUILD_INPUTS = ['src', 'activities', 'workflows', 'systems', 'package-lock.json'] as const;
/** Files of those directories that count: code and data, not editor or OS leftovers. */
const COUNTED = /\.(ts|mts|mjs|js|json|ya?ml)$/;

export interface BuildFile {
  /** Project-relative, '/'-separated. */
  path: string;
  content: Uint8Array;
}

/** `spica-` and 16 hex digits of a SHA-256 over the files' paths and contents, in path order. */
export function buildIdOf(files: readonly BuildFile[]): string {
  const hash = createHash('sha256');
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    hash.update(f.path).update('\0').update(f.content).update('\0');
  }
  return `spica-${hash.digest('hex').slice(0, 16)}`;
}

function buildFiles(root: string): BuildFile[] {
  const files: BuildFile[] = [];
  const add = (rel: string) => files.push({ path: rel.split(path.sep).join('/'), content: readFileSync(path.join(root, rel)) });
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = path.join(rel, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (COUNTED.test(entry.name)) add(child);
    }
  };
  for (const input of BUILD_INPUTS) {
    try {
      (input.includes('.') ? add : walk)(input);
    } catch (err) {
      // An install without one of them (no lock file, say) still has one id, the same on every copy.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return files;
}

const builds = new Map<string, string>();

/** This checkout's build id (~10 ms the first time in a process: ~280 files read and hashed). */
export function spicaBuildId(root: string = PROJECT_ROOT): string {
  let id = builds.get(root);
  if (id === undefined) builds.set(root, (id = buildIdOf(buildFiles(root))));
  return id;
}
