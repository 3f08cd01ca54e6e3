// How the Temporal worker SDK's own dependencies load in the compiled CLI (issue 15, "start fast").
// `@temporalio/worker` requires, at load, two many-file packages it barely needs at start:
// - rxjs (226 CommonJS files, one resolve + read + compile each, ~45 ms of a 2-core box): the build
//   writes it as one file beside the CLI (`sdk-modules/rxjs.cjs`, both entry points the SDK uses:
//   `rxjs` and `rxjs/operators`), and the hook below serves the SDK's `require` from it;
// - memfs and unionfs (~100 files, ~30 ms), which only its webpack bundler uses, i.e. only when the
//   workflow bundle must be rebuilt: they load on first use instead.
// Plain JavaScript used by the bin before anything else loads; the sources run through tsx
// (SPICA_RUN_SOURCES=1, vitest) load the packages as they are.
import { existsSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { join } from 'node:path';

const RXJS_FILE = 'sdk-modules/rxjs.cjs';
/** rxjs entry points → the key of their exports in the one-file build. */
const RXJS_ENTRIES = { rxjs: 'rxjs', 'rxjs/operators': 'operators' };
/** Packages only the SDK's workflow bundler uses, loaded when it first touches them. */
const BUNDLER_ONLY = new Set(['memfs', 'unionfs']);
const BUNDLER_FILE = /[\\/]@temporalio[\\/]worker[\\/]lib[\\/]workflow[\\/]bundler\.js$/;

/** Builds `<outdir>/sdk-modules/rxjs.cjs` with esbuild's `build` (~0.1 s). */
export async function buildSdkModules(build, projectRoot, outdir) {
  await build({
    stdin: {
      contents: `module.exports = { ${Object.entries(RXJS_ENTRIES).map(([spec, key]) => `${JSON.stringify(key)}: require(${JSON.stringify(spec)})`).join(', ')} };`,
      resolveDir: projectRoot,
      loader: 'js',
    },
    outfile: join(outdir, RXJS_FILE),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    logLevel: 'silent',
  });
}

/**
 * A module that loads `load()` on its first property read. TypeScript's `__importStar` hands a module
 * marked `__esModule` through as it is, so the SDK's `memfs.Volume` reaches the real one then.
 */
function onFirstUse(load) {
  let real;
  return new Proxy(
    {},
    {
      get: (_, key) => (key === '__esModule' ? true : (real ??= load())[key]),
      has: (_, key) => key in (real ??= load()),
    },
  );
}

let installed = false;

/** Serves the SDK's rxjs from the build in `cliDir` and defers the bundler-only packages. Idempotent. */
export function useSdkModules(cliDir) {
  const file = join(cliDir, RXJS_FILE);
  if (installed || !existsSync(file)) return;
  installed = true;
  let rxjs;
  const load = Module._load;
  Module._load = function spicaSdkModules(request, parent, isMain) {
    const key = RXJS_ENTRIES[request];
    if (key !== undefined) {
      rxjs ??= createRequire(file)(file);
      return rxjs[key];
    }
    if (BUNDLER_ONLY.has(request) && parent && BUNDLER_FILE.test(parent.filename ?? '')) {
      return onFirstUse(() => load.call(Module, request, parent, isMain));
    }
    return load.call(this, request, parent, isMain);
  };
}
