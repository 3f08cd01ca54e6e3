// Worker-thread entry of the replay pool: the compiled runner from the current build (dist/) while it
// is fresh, else the TypeScript runner through tsx's loader — never a build older than the sources
// (CLARIFICATIONS §D: worker threads).
import { pathToFileURL } from 'node:url';
import { freshArtifact } from '../scripts/build/artifacts.mjs';
import { CLI_ARTIFACT, replayThreadEntry } from '../scripts/build/cli-bundle.mjs';

const built = process.env.SPICA_RUN_SOURCES === '1' ? null : freshArtifact(CLI_ARTIFACT);
if (built) {
  await import(pathToFileURL(replayThreadEntry(built)).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./replay-thread.ts');
}
