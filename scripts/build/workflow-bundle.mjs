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
  writeFileSync(join(dir, 'workflow-bundle.js'), bundle.code);
  writeFileSync(join(dir, 'workflow-bundle.js.map'), bundle.sourceMap);
  publishArtifact(WORKFLOWS_ARTIFACT, dir, [...sources, ...BUILD_FILES], startedMs);
  return { bundle, dir };
}

/** The current workflow bundle: the stored one while fresh, else a new one (stored for the next worker). */
export async function workflowBundle() {
  const dir = freshArtifact(WORKFLOWS_ARTIFACT);
  if (dir) {
    try {
      return {
        code: readFileSync(join(dir, 'workflow-bundle.js'), 'utf8'),
        sourceMap: readFileSync(join(dir, 'workflow-bundle.js.map'), 'utf8'),
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
