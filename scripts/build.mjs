// `npm run build` (and npm's `prepare`, so `npm ci` alone leaves a runnable CLI): compiles the CLI
// and the replay threads to JavaScript and prebuilds the Temporal workflow bundle into dist/.
import { relative } from 'node:path';
import { buildCli } from './build/cli-bundle.mjs';
import { buildWorkflowBundle } from './build/workflow-bundle.mjs';

const t0 = performance.now();
const cli = await buildCli();
const { dir: workflows } = await buildWorkflowBundle();
const rel = (d) => relative(process.cwd(), d);
console.log(`spica build: ${rel(cli)}, ${rel(workflows)} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
