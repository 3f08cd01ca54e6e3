// Where the project keeps its local state. Everything under `.spica/` is git-ignored.
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** Repository root (this file lives at src/cli/temporal/). */
export const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Project-local state directory: venv with the Temporal CLI, dev-server SQLite, locks. */
export function spicaStateDir(projectRoot: string = PROJECT_ROOT): string {
  return path.join(projectRoot, '.spica');
}

/** The default embedded-server settings file. */
export function defaultDevConfigPath(projectRoot: string = PROJECT_ROOT): string {
  return path.join(projectRoot, 'temporal-dev.yaml');
}
