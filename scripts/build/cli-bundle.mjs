// Compiles the CLI and the replay-thread runner to JavaScript with esbuild (~0.2 s): one ESM bundle
// per entry with shared chunks, so `spica validate` loads only what it needs and no TypeScript is
// compiled at run time. yaml and zod are bundled (their many small modules cost more to resolve than
// to parse once); every other package stays external (Temporal's native parts, whatever else is added).
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newArtifactDir, PROJECT_ROOT, publishArtifact } from './artifacts.mjs';
import { buildSdkModules } from './sdk-modules.mjs';

export const CLI_ARTIFACT = 'cli';
const BUNDLED_PACKAGES = new Set(['yaml', 'zod']);

/** The build's own files: changing how we build makes the old build stale too. */
const BUILD_FILES = ['scripts/build/artifacts.mjs', 'scripts/build/cli-bundle.mjs', 'scripts/build/sdk-modules.mjs', 'package-lock.json', 'tsconfig.json'];

const packageName = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);

/** Bare imports stay external unless listed in BUNDLED_PACKAGES. */
const externalPackages = {
  name: 'spica-external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('node:') || !BUNDLED_PACKAGES.has(packageName(args.path)) ? { path: args.path, external: true } : undefined,
    );
  },
};

/**
 * Project files locate data beside themselves (`new URL('../../systems/', import.meta.url)`); in the
 * bundle `import.meta.url` is the chunk's URL, so each project file gets its own source URL back,
 * written relative to the (flat) output directory so the build stays valid wherever the clone lives.
 */
function sourceUrls(outdir) {
  return {
    name: 'spica-source-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.(ts|mts|js|mjs)$/ }, (args) => {
        if (args.path.includes(`${'/'}node_modules${'/'}`)) return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const rel = relative(outdir, args.path).split('\\').join('/');
        return {
          contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`),
          loader: /\.m?ts$/.test(args.path) ? 'ts' : 'js',
          resolveDir: dirname(args.path),
        };
      });
    },
  };
}

/** Builds `dist/cli-<id>/{cli,replay-thread}.js` (and the SDK's one-file rxjs) and publishes it; returns the directory. */
export async function buildCli() {
  const startedMs = Date.now();
  const { build } = await import('esbuild'); // only when building: the bin imports this file on every start
  const outdir = newArtifactDir(CLI_ARTIFACT);
  const result = await build({
    absWorkingDir: PROJECT_ROOT,
    entryPoints: { cli: 'src/cli/main.ts', 'replay-thread': 'activities/replay-thread.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: '[name]-[hash]',
    keepNames: true,
    metafile: true,
    logLevel: 'silent',
    // CommonJS inside the bundled packages (yaml) calls require(); give ESM chunks one.
    banner: { js: "import { createRequire as __spicaRequire } from 'node:module'; const require = __spicaRequire(import.meta.url);" },
    plugins: [externalPackages, sourceUrls(outdir)],
  });
  await buildSdkModules(build, PROJECT_ROOT, outdir);
  const sources = Object.keys(result.metafile.inputs).filter((f) => !f.includes('node_modules/'));
  publishArtifact(CLI_ARTIFACT, outdir, [...sources, ...BUILD_FILES], startedMs);
  return outdir;
}

export const cliEntry = (dir) => join(dir, 'cli.js');
export const replayThreadEntry = (dir) => join(dir, 'replay-thread.js');

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = await buildCli();
  console.log(`built ${relative(process.cwd(), dir)}`);
}
