// Vitest globalSetup: the Chromium binary for the browser test (test/support/chromium.ts), found or
// installed before any test runs, only when a selected test file uses it (`inject('chromiumPath')`).
// A machine without it and without a way to install it fails the run at once with one line.
import type { TestProject } from 'vitest/node';
import { provisionChromium } from '../support/chromium.js';
import { selectedFilesUse } from '../support/provision.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Chromium binary; '' when no selected test needs it or SPICA_SKIP_BROWSER_TESTS=1. */
    chromiumPath: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  project.provide('chromiumPath', '');
  if (process.env.SPICA_SKIP_BROWSER_TESTS === '1') return;
  if (!(await selectedFilesUse(project, (_, source) => /inject\('chromiumPath'\)/.test(source)))) return;
  project.provide('chromiumPath', provisionChromium({ log: (l) => process.stderr.write(`chromium: ${l}\n`) }));
}
