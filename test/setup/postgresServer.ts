// Vitest globalSetup: ONE throwaway PostgreSQL server for the run (test/support/postgres.ts), started
// only when a selected test file uses it (`inject('postgresUrl')`); stopped at the end. Each such
// test file creates its own database on it. Missing binaries: installed with apt-get when possible,
// else the run fails at once with one line saying what to install.
import { readFileSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { startPostgres } from '../support/postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string of the shared test server's `postgres` database; '' when no selected test needs it. */
    postgresUrl: string;
  }
}

async function selectedFilesNeedPostgres(project: TestProject): Promise<boolean> {
  try {
    const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
    const { testFiles } = await project.globTestFiles(filters);
    return testFiles.some((file) => /postgresUrl/.test(readFileSync(file, 'utf8')));
  } catch {
    return true;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  project.provide('postgresUrl', '');
  if (!(await selectedFilesNeedPostgres(project))) return undefined;
  const server = await startPostgres((l) => process.stderr.write(`postgres: ${l}\n`));
  project.provide('postgresUrl', server.url);
  return () => server.stop();
}
