// The Temporal workflow bundle (webpack, several seconds) built once and stored as the `workflows`
// build artifact. Workers read the stored bundle while it is fresh; when any workflow source changed
// they bundle again and store the new one, so only the first worker after an edit pays for it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshArtifact, newArtifactDir, PROJECT_ROOT, publishArtifact } from './artifacts.mjs';

export const WORKFLOWS_ARTIFACT = 'workflows';
export const WORKFLOWS_SOURCE = join(PROJECT_ROOT, 'workflows', 'index.ts');
const BUILD_FILES = ['scripts/build/artifacts.mjs', 'scripts/build/workflow-bundle.mjs', 'package-lock.json'];

/** Every project source the workflow bundle contains (esbuild follows the same imports as webpack). */
async function workflowSources() {
  const { build } = await import('esbuild');
  const r = await build({
    absWorkingDir: PROJECT_ROOT,
    entryPoints: [WORKFLOWS_SOURCE],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'neutral',
    packages: 'external',
    logLevel: 'silent',
  });
  return Object.keys(r.metafile.inputs).filter((f) => !f.includes('node_modules/'));
}

/** Bundles the workflows now, stores the bundle as the current artifact and returns it. */
export async function buildWorkflowBundle() {
  const startedMs = Date.now();
  const sources = await workflowSources();
  const { bundleWorkflowCode, DefaultLogger } = await import('@temporalio/worker');
  const bundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_SOURCE, logger: new DefaultLogger('ERROR') });
  const dir = newArtifactDir(WORKFLOWS_ARTIFACT);
  const { code, sourceMap } = withSlimSourceMap(bundle.code);
  writeFileSync(join(dir, 'workflow-bundle.js'), code);
  writeFileSync(join(dir, 'workflow-bundle.js.map'), sourceMap);
  publishArtifact(WORKFLOWS_ARTIFACT, dir, [...sources, ...BUILD_FILES], startedMs);
  return { bundle: { code, sourceMap: '' }, dir };
}

const INLINE_MAP = '//# sourceMappingURL=data:';

/** `code` split from its inline source map (the map's JSON text); null when it has none. */
export function splitInlineSourceMap(code) {
  const at = code.lastIndexOf(INLINE_MAP);
  const b64 = at < 0 ? -1 : code.indexOf('base64,', at);
  if (b64 < 0) return null;
  return { code: code.slice(0, at), sourceMap: Buffer.from(code.slice(b64 + 'base64,'.length).trim(), 'base64').toString() };
}

/** `code` (without a map) with `sourceMap` (JSON text) as its inline source map. */
export function withInlineSourceMap(code, sourceMap) {
  return `${code}${INLINE_MAP}application/json;base64,${Buffer.from(sourceMap).toString('base64')}\n`;
}

/**
 * The bundle with an empty inline source map, and the full map to keep beside it. The SDK insists on
 * an inline map, and at every Worker.create it decodes, parses and re-encodes it and compiles the
 * bundle with it: webpack's map is 1.5 MB of the 2.2 MB bundle and cost ~0.1–0.5 s per worker start
 * (measured on a loaded 2-core box). Workflow stack traces then name lines of the (readable,
 * unminified) bundle in dist/workflows-<id>/; workflow-bundle.js.map there maps them to the sources.
 */
export function withSlimSourceMap(code) {
  const split = splitInlineSourceMap(code);
  if (!split) return { code, sourceMap: '' };
  const file = JSON.parse(split.sourceMap).file ?? 'workflow-bundle.js';
  const slim = JSON.stringify({ version: 3, file, sources: [], names: [], mappings: '' });
  return { code: withInlineSourceMap(split.code, slim), sourceMap: split.sourceMap };
}

/** The current workflow bundle: the stored one while fresh, else a new one (stored for the next worker). */
export async function workflowBundle() {
  const dir = freshArtifact(WORKFLOWS_ARTIFACT);
  if (dir) {
    try {
      return {
        code: readFileSync(join(dir, 'workflow-bundle.js'), 'utf8'),
        // Workers read the bundle's inline (slim) map; the SDK no longer reads this field, and the full
        // map beside the bundle (1.2 MB) is for people reading workflow stack traces.
        sourceMap: '',
      };
    } catch {
      // removed underneath us: bundle again
    }
  }
  return (await buildWorkflowBundle()).bundle;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { dir } = await buildWorkflowBundle();
  console.log(`built ${relative(process.cwd(), dir)}`);
}
