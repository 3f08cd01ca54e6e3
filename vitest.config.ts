import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // One shared Temporal dev server for the run; tests read its address via inject('temporalAddress').
    globalSetup: ['test/setup/postgresServer.ts', 'test/setup/temporalServer.ts'],
    // Two cores: keep worker count low so integration tests against the dev server are not starved.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
