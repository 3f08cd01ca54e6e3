// How the compiled CLI loads the worker SDK's dependencies (scripts/build/sdk-modules.mjs): rxjs from
// the build's one file, the same objects for both entry points the SDK requires; memfs and unionfs,
// which only the SDK's webpack bundler uses, on first use; everything else as it is.
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { buildSdkModules, useSdkModules } from '../../scripts/build/sdk-modules.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// `require` as the SDK's own files have it.
const fromWorker = createRequire(join(ROOT, 'node_modules/@temporalio/worker/lib/worker.js'));
const fromBundler = createRequire(join(ROOT, 'node_modules/@temporalio/worker/lib/workflow/bundler.js'));
const loaded = (part: string) => Object.keys(fromWorker.cache).some((f) => f.includes(part));

describe('the SDK modules of the compiled CLI', () => {
  it('serves rxjs from one built file and loads the bundler-only packages on first use', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spica-sdk-modules-'));
    await buildSdkModules(build, ROOT, dir);
    useSdkModules(dir);
    const rxjs = fromWorker('rxjs') as typeof import('rxjs');
    const operators = fromWorker('rxjs/operators') as typeof import('rxjs/operators');
    expect(loaded(join(dir, 'sdk-modules/rxjs.cjs'))).toBe(true);
    expect(loaded('/node_modules/rxjs/')).toBe(false);
    // One rxjs: the operators the SDK pipes come from the same build as its Observables.
    expect(operators.mergeMap).toBe(rxjs.mergeMap);
    const seen: number[] = [];
    rxjs.of(1, 2, 3).pipe(operators.map((x) => x * 2), operators.filter((x) => x > 2)).subscribe((x) => seen.push(x));
    expect(seen).toEqual([4, 6]);

    const memfs = fromBundler('memfs') as typeof import('memfs');
    expect(loaded('/node_modules/memfs/')).toBe(false);
    const vol = new memfs.Volume(); // first use: the real package
    expect(loaded('/node_modules/memfs/')).toBe(true);
    vol.writeFileSync('/a.txt', 'x');
    expect(memfs.createFsFromVolume(vol).readFileSync('/a.txt', 'utf8')).toBe('x');
    expect('Union' in (fromBundler('unionfs') as object)).toBe(true);
    // Elsewhere memfs is itself.
    expect(fromWorker('memfs')).toBe(createRequire(join(ROOT, 'node_modules/memfs/package.json'))('memfs'));

    // The SDK loads and builds its worker machinery on them.
    const sdk = fromWorker('@temporalio/worker') as typeof import('@temporalio/worker');
    expect(typeof sdk.Worker.create).toBe('function');
    expect(loaded('/node_modules/rxjs/')).toBe(false);
  });
});
