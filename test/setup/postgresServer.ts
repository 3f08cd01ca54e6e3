// Vitest globalSetup: ONE throwaway PostgreSQL server for the run (test/support/postgres.ts), started
// only when a selected test file uses it (`inject('postgresUrl')`); stopped at the end. Each such
// test file creates its own database on it. Missing binaries: installed with apt-get when possible,
// else the run fails at once with one line saying what to install.
import type { TestProject } from 'vitest/node';
import { startPostgres } from '../support/postgres.js';
import { selectedFilesUse } from '../support/provision.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string of the shared test server's `postgres` database; '' when no selected test needs it. */
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  project.provide('postgresUrl', '');
  if (!(await selectedFilesUse(project, (_, source) => /postgresUrl/.test(source)))) return undefined;
  const server = await startPostgres((l) => process.stderr.write(`postgres: ${l}\n`));
  project.provide('postgresUrl', server.url);
  return () => server.stop();
}
