// Vitest globalSetup: the measured perf data (kernel tables and e2e deployments) that calibration,
// accuracy and fact tests read. It is never copied into the repository, so it must be found through
// SPICA_PERFDB or as `shared/perfdb` beside the repository; a run without it stops at once with one line
// instead of failing (or skipping) tests deep in the run.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { perfdbDir } from '../../src/hardware/perf/perfdbTables.js';
import { setupFailure } from '../support/provision.js';

export default function setup(): void {
  const dir = perfdbDir();
  for (const probe of ['models.csv', 'e2e']) {
    if (!existsSync(join(dir, probe))) {
      throw setupFailure(`perf data not found: ${join(dir, probe)} is missing; put the perfdb extract beside the repository (../shared/perfdb) or set SPICA_PERFDB to its folder`);
    }
  }
}
