// The compiled build is used only while it matches the sources: freshness is every input's (mtime,
// size); a file edited while the build ran leaves the build stale; a rebuild publishes a new
// directory atomically and keeps the old one for processes still loading from it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freshArtifact, newArtifactDir, publishArtifact } from '../../scripts/build/artifacts.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function fakeClone() {
  const root = mkdtempSync(join(tmpdir(), 'spica-build-'));
  mkdirSync(join(root, 'src'));
  const a = join(root, 'src/a.ts');
  const b = join(root, 'src/b.ts');
  writeFileSync(a, 'export const a = 1;\n');
  writeFileSync(b, 'export const b = 2;\n');
  const past = new Date(Date.now() - 60_000);
  utimesSync(a, past, past);
  utimesSync(b, past, past);
  return { root, a, b };
}

describe('build artifacts', () => {
  it('is fresh while its inputs are unchanged; any touched, resized or removed input makes it stale', () => {
    const { root, a, b } = fakeClone();
    expect(freshArtifact('cli', root)).toBeNull();
    const dir = newArtifactDir('cli', root);
    publishArtifact('cli', dir, ['src/a.ts', b], Date.now(), root);
    expect(freshArtifact('cli', root)).toBe(dir);
    const later = new Date(Date.now() - 30_000);
    utimesSync(a, later, later); // same content, new mtime (an editor save, a git checkout)
    expect(freshArtifact('cli', root)).toBeNull();
    publishArtifact('cli', dir, ['src/a.ts', b], Date.now(), root);
    expect(freshArtifact('cli', root)).toBe(dir);
    writeFileSync(b, 'export const b = 22;\n');
    expect(freshArtifact('cli', root)).toBeNull();
  });

  it('counts a source modified after the build started as stale (it may have been read before the edit)', () => {
    const { root, a } = fakeClone();
    const started = Date.now() - 10_000;
    const dir = newArtifactDir('cli', root);
    publishArtifact('cli', dir, [a], started, root); // a's mtime (1 min ago) is before `started`
    expect(freshArtifact('cli', root)).toBe(dir);
    writeFileSync(a, 'export const a = 3;\n'); // edited "during" a build that started earlier
    publishArtifact('cli', dir, [a], started, root);
    expect(freshArtifact('cli', root)).toBeNull();
    expect(JSON.parse(readFileSync(join(root, 'dist/cli.json'), 'utf8')).inputs).toEqual([['src/a.ts', -1, -1]]);
  });

  it('a rebuild publishes a new directory and keeps the one it replaced', () => {
    const { root, a } = fakeClone();
    const first = newArtifactDir('cli', root);
    publishArtifact('cli', first, [a], Date.now(), root);
    const second = newArtifactDir('cli', root);
    publishArtifact('cli', second, [a], Date.now(), root);
    expect(second).not.toBe(first);
    expect(freshArtifact('cli', root)).toBe(second);
    expect(existsSync(first)).toBe(true);
  });

  it('the real CLI build lists the sources it compiled and the bin rebuilds it when one changes', () => {
    // Build (or find) the current CLI, then touch a CLI-only source: the next `spica` run must rebuild.
    const run = () => spawnSync(process.execPath, [join(ROOT, 'bin/spica.js'), '--help'], { encoding: 'utf8' });
    expect(run().status).toBe(0);
    const before = freshArtifact('cli');
    expect(before).not.toBeNull();
    const pointer = JSON.parse(readFileSync(join(ROOT, 'dist/cli.json'), 'utf8')) as { inputs: [string][] };
    const inputs = pointer.inputs.map(([rel]) => rel);
    expect(inputs).toEqual(expect.arrayContaining(['src/cli/main.ts', 'src/cli/commands/validate.ts', 'activities/replay-thread.ts', 'package-lock.json']));
    expect(inputs.some((f) => f.includes('node_modules'))).toBe(false);
    const source = join(ROOT, 'src/cli/commands/validate.ts');
    const now = new Date();
    utimesSync(source, now, now);
    expect(freshArtifact('cli')).toBeNull();
    const r = run();
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: spica <command>');
    const after = freshArtifact('cli');
    expect(after).not.toBeNull();
    expect(after).not.toBe(before);
  });
});

// `npm ci` runs `prepare` (scripts/build.mjs) and so does the first `npx spica` after it: npx installs
// the project itself into its cache (a link) to find the `spica` bin, and npm runs the linked
// package's `prepare`. A build whose artifacts are fresh must therefore skip them (it used to rebuild
// both, ~3–12 s on the first `npx spica`); `--force` still rebuilds. In this file, not its own: the
// bin test above rebuilds the real dist/, which must not race these. Both judge by what the build
// says it did, not by dist/ staying unchanged: `spica` processes of other test files running
// meanwhile may still publish a rebuild they started while the test above had a source touched.
const build = () => spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, encoding: 'utf8' });

describe('prepare on a fresh build', () => {
  it('skips artifacts that are fresh: the second build rebuilds nothing', () => {
    expect(build().status).toBe(0); // makes both fresh (builds whatever is stale)
    expect(freshArtifact('cli')).not.toBeNull();
    expect(freshArtifact('workflows')).not.toBeNull();
    const t0 = performance.now();
    const again = build();
    const ms = performance.now() - t0;
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/up to date dist\/cli-\S+, dist\/workflows-/);
    expect(again.stdout).not.toContain('built');
    expect(ms).toBeLessThan(2_000); // a node start and a stat per source, no esbuild or webpack
  }, 60_000);

  it('the first `npx spica` from a fresh npm cache runs prepare without rebuilding', () => {
    expect(build().status).toBe(0);
    // What prepare says it did (its output shows with foreground scripts).
    const r = spawnSync('npx', ['spica', '--help'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: {
        ...process.env,
        npm_config_cache: mkdtempSync(join(tmpdir(), 'spica-npx-cache-')),
        npm_config_offline: 'true',
        npm_config_yes: 'true',
        npm_config_foreground_scripts: 'true',
      },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Usage: spica <command>');
    const prepare = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.startsWith('spica build:'));
    expect(prepare).toHaveLength(1);
    expect(prepare[0]).toMatch(/^spica build: up to date dist\/cli-\S+, dist\/workflows-\S+ \(/);
  }, 60_000);
});
