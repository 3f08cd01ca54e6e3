// Vitest globalSetup: ONE real `temporal server start-dev` for the whole test run (random free
// port, in-memory store, search attributes + dynamic config from temporal-dev.yaml). Test files
// read its address with `inject('temporalAddress')` (or use test/temporal/harness.ts). Runs that
// select no such file (e.g. `vitest run test/config`) do not pay for it: the server starts only
// when a selected test file lives under test/temporal/ or mentions `temporalAddress` or the harness.
import type { TestProject } from 'vitest/node';
import { provisionTemporalCli } from '../../src/cli/temporal/cli-binary.js';
import { loadDevServerConfig } from '../../src/cli/temporal/dev-config.js';
import { startDevServer } from '../../src/cli/temporal/dev-server.js';
import { freePort } from '../../src/cli/temporal/free-port.js';
import { selectedFilesUse } from '../support/provision.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** host:port of the shared dev server; '' when no selected test needs it. */
    temporalAddress: string;
    temporalNamespace: string;
    /** The provisioned `temporal` CLI binary. */
    temporalCliPath: string;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  project.provide('temporalAddress', '');
  project.provide('temporalNamespace', 'default');
  project.provide('temporalCliPath', '');
  const needsServer = (file: string, source: string) => /[\\/]test[\\/]temporal[\\/]/.test(file) || /temporalAddress|temporal\/harness/.test(source);
  if (!(await selectedFilesUse(project, needsServer))) return undefined;

  const cli = await provisionTemporalCli({ log: (l) => process.stderr.write(`provision: ${l}\n`) });
  const base = loadDevServerConfig();
  const server = await startDevServer(
    { ...base, port: await freePort(), ui: { enabled: false }, db_filename: null, log_level: 'error', startup_timeout_seconds: 90 },
    { cliPath: cli.path, reuse: false },
  );
  for (const w of server.warnings) process.stderr.write(`temporal test server: ${w}\n`);
  project.provide('temporalAddress', server.address);
  project.provide('temporalNamespace', server.namespace);
  project.provide('temporalCliPath', cli.path);
  return () => server.stop();
}
