#!/usr/bin/env node
// Entry point for `npx spica`. Runs the compiled CLI from dist/ (built by `npm ci` through `prepare`).
// Sources edited since that build are never run stale: the build is remade first (esbuild, ~0.3 s),
// and if that is impossible the TypeScript sources run through tsx. SPICA_RUN_SOURCES=1 forces tsx.
import { pathToFileURL } from 'node:url';
import { freshArtifact } from '../scripts/build/artifacts.mjs';
import { buildCli, CLI_ARTIFACT, cliEntry } from '../scripts/build/cli-bundle.mjs';
import { useSdkModules } from '../scripts/build/sdk-modules.mjs';

async function compiledCli() {
  if (process.env.SPICA_RUN_SOURCES === '1') return null;
  const dir = freshArtifact(CLI_ARTIFACT) ?? (await buildCli().catch(() => null));
  if (dir) useSdkModules(dir);
  return dir ? cliEntry(dir) : null;
}

const entry = await compiledCli();
let main;
if (entry) {
  ({ main } = await import(pathToFileURL(entry).href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
