import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Fresh-machine provisioning, one module per component (test/support/provision.ts): the perf data
    // (found or a one-line stop), Chromium,
    // PostgreSQL, and one shared Temporal dev server; tests read them via inject('chromiumPath' | 'postgresUrl' | 'temporalAddress').
    globalSetup: ['test/setup/perfdb.ts', 'test/setup/chromium.ts', 'test/setup/postgresServer.ts', 'test/setup/temporalServer.ts'],
    // Two cores: keep worker count low so integration tests against the dev server are not starved.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
