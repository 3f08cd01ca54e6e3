// `npm run build` (and npm's `prepare`, so `npm ci` alone leaves a runnable CLI): compiles the CLI
// and the replay threads to JavaScript and prebuilds the Temporal workflow bundle into dist/.
// An artifact that is still fresh (every source it was built from unchanged, scripts/build/artifacts.mjs)
// is not rebuilt: npm runs `prepare` again on the first `npx spica` after `npm ci` (npx installs the
// project itself into its cache, as a link, to find the `spica` bin), and that run costs nothing now.
// `--force` rebuilds regardless.
import { relative } from 'node:path';
import { freshArtifact } from './build/artifacts.mjs';
import { buildCli, CLI_ARTIFACT } from './build/cli-bundle.mjs';
import { buildWorkflowBundle, WORKFLOWS_ARTIFACT } from './build/workflow-bundle.mjs';

const force = process.argv.includes('--force');
const t0 = performance.now();
const rel = (d) => relative(process.cwd(), d);
const built = [];
const fresh = [];
const cliFresh = force ? null : freshArtifact(CLI_ARTIFACT);
if (cliFresh) fresh.push(rel(cliFresh));
else built.push(rel(await buildCli()));
const workflowsFresh = force ? null : freshArtifact(WORKFLOWS_ARTIFACT);
if (workflowsFresh) fresh.push(rel(workflowsFresh));
else built.push(rel((await buildWorkflowBundle()).dir));
const parts = [];
if (built.length > 0) parts.push(`built ${built.join(', ')}`);
if (fresh.length > 0) parts.push(`up to date ${fresh.join(', ')}`);
console.log(`spica build: ${parts.join('; ')} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
