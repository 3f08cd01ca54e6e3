// Chromium for the report test (playwright-core drives a system browser; it downloads none):
// SPICA_CHROMIUM_PATH, else the first chromium on PATH, else Debian's `chromium` installed with
// apt-get when this process may, else one line saying what to install.
import { isExecutable, whichOnPath } from '../../src/cli/temporal/cli-binary.js';
import { aptInstall, setupFailure } from './provision.js';

export const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

export const CHROMIUM_HINT =
  'Chromium not found (the report test drives it headless): install it with `apt-get install chromium` (or set SPICA_CHROMIUM_PATH to a Chromium/Chrome binary, or SPICA_SKIP_BROWSER_TESTS=1 to skip the browser test)';

export interface ChromiumOptions {
  env?: NodeJS.ProcessEnv;
  /** Installs the browser (default: Debian's chromium via apt-get); false when it could not. */
  install?: (log: (line: string) => void) => boolean;
  log?: (line: string) => void;
}

function find(env: NodeJS.ProcessEnv): string | null {
  for (const name of CHROMIUM_NAMES) {
    const found = whichOnPath(name, env.PATH);
    if (found) return found;
  }
  return null;
}

/** The Chromium binary to drive, installing it first when missing and possible. */
export function provisionChromium(opts: ChromiumOptions = {}): string {
  const env = opts.env ?? process.env;
  const log = opts.log ?? (() => undefined);
  const explicit = env.SPICA_CHROMIUM_PATH;
  if (explicit) {
    if (isExecutable(explicit)) return explicit;
    throw setupFailure(`SPICA_CHROMIUM_PATH=${explicit} is not an executable file. ${CHROMIUM_HINT}`);
  }
  const found = find(env);
  if (found) return found;
  (opts.install ?? ((l) => aptInstall('chromium', l)))(log);
  const installed = find(env);
  if (installed) return installed;
  throw setupFailure(CHROMIUM_HINT);
}
