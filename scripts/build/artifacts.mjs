// Build artifacts under dist/: each build writes a fresh directory `dist/<name>-<id>/` (never
// rewritten, so a process still loading chunks from an older build is safe) and then, atomically,
// the pointer `dist/<name>.json` naming that directory and every source file it was built from with
// its mtime and size. A build is "fresh" only while every one of those files is unchanged, so
// edited TypeScript is never run from a stale build; the check is one stat per source file (~1 ms).
// Plain JavaScript: the bin and the replay threads use it before anything is compiled.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Replaced build directories are kept a while (running processes may still load from them). */
const KEEP_REPLACED_MS = 60 * 60 * 1000;
const KEEP_REPLACED = 2;

function pointerPath(name, root) {
  return join(root, 'dist', `${name}.json`);
}

function stamp(file) {
  try {
    const s = statSync(file);
    return [s.mtimeMs, s.size];
  } catch {
    return null;
  }
}

/**
 * The directory of the current `name` build (of the clone at `root`) when every input is unchanged since it was built;
 * null when there is none, it is unreadable, or any input changed (or disappeared).
 */
export function freshArtifact(name, root = PROJECT_ROOT) {
  let pointer;
  try {
    pointer = JSON.parse(readFileSync(pointerPath(name, root), 'utf8'));
  } catch {
    return null;
  }
  if (!pointer || typeof pointer.dir !== 'string' || !Array.isArray(pointer.inputs)) return null;
  for (const [rel, mtimeMs, size] of pointer.inputs) {
    const now = stamp(join(root, rel));
    if (!now || now[0] !== mtimeMs || now[1] !== size) return null;
  }
  const dir = join(root, 'dist', pointer.dir);
  return stamp(dir) ? dir : null;
}

/** A new, empty build directory for `name`. */
export function newArtifactDir(name, root = PROJECT_ROOT) {
  const dist = join(root, 'dist');
  mkdirSync(dist, { recursive: true });
  const dir = join(dist, `${name}-${Date.now().toString(36)}-${process.pid}-${Math.random().toString(36).slice(2, 6)}`);
  mkdirSync(dir);
  return dir;
}

/**
 * Publishes `dir` as the current `name` build made from `inputFiles` (absolute or project-relative).
 * `startedMs` is when the build began reading sources: a file modified after that may have been read
 * before its last edit, so it is recorded with an impossible stamp and the build counts as stale.
 */
export function publishArtifact(name, dir, inputFiles, startedMs, root = PROJECT_ROOT) {
  const dist = join(root, 'dist');
  const inputs = [...new Set(inputFiles.map((f) => relative(root, resolve(root, f))))].sort().map((rel) => {
    const s = stamp(join(root, rel));
    return s && s[0] < startedMs ? [rel, s[0], s[1]] : [rel, -1, -1];
  });
  const tmp = `${pointerPath(name, root)}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ dir: relative(dist, dir), builtAt: new Date().toISOString(), inputs }));
  renameSync(tmp, pointerPath(name, root));
  removeReplaced(name, dir, dist);
}

/** Deletes replaced builds, keeping the newest few and any made within the last hour. */
function removeReplaced(name, current, dist) {
  const prefix = `${name}-`;
  const old = readdirSync(dist, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name.startsWith(prefix) && join(dist, e.name) !== current)
    .map((e) => ({ dir: join(dist, e.name), mtimeMs: stamp(join(dist, e.name))?.[0] ?? 0 }))
    .sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const { dir, mtimeMs } of old.slice(KEEP_REPLACED)) {
    if (Date.now() - mtimeMs > KEEP_REPLACED_MS) rmSync(dir, { recursive: true, force: true });
  }
}
