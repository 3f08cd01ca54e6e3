// Records the workflow-history fixtures replayed by test/temporal/replay.test.ts:
//   npm exec -- tsx scripts/record-histories.ts      (or: node --import tsx scripts/record-histories.ts)
// Runs the current `sweep` workflow on a throwaway in-memory dev server with a real worker and
// saves the parent's and one child's history as JSON under test/temporal/histories/. Re-record
// only for an intentional, versioned change (see `patched()`), never to silence a replay failure.
// `... record-histories.ts waves-here` records only branchStudy-agg.waves-here.json: the branch as
// `spica sweep`'s in-process worker runs it alone (waves replayed on that worker, WAVES_HERE_PATCH),
// two rounds of replays slow enough (~1 s each) that each round ends the workflow task (HELD_TASK_REPLAY_MS).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { parseConfigText } from '../src/config/load.js';
import { provisionTemporalCli } from '../src/cli/temporal/cli-binary.js';
import { loadDevServerConfig } from '../src/cli/temporal/dev-config.js';
import { startDevServer } from '../src/cli/temporal/dev-server.js';
import { freePort } from '../src/cli/temporal/free-port.js';
import { createSpicaWorker } from '../src/cli/temporal/worker.js';
import { branchWorkflowId, type sweep } from '../workflows/sweep.js';
import { HISTORY_FIXTURE_CONFIG_YAML, HISTORY_FIXTURE_WORKFLOW_ID } from '../test/temporal/history-fixture.js';

const OUT_DIR = fileURLToPath(new URL('../test/temporal/histories/', import.meta.url));
const TASK_QUEUE = 'record-histories';

async function main(): Promise<void> {
  // A fresh result cache: the recorded branch history contains real replay waves.
  process.env.SPICA_CACHE_DIR = mkdtempSync(path.join(os.tmpdir(), 'spica-record-cache-'));
  const cli = await provisionTemporalCli({ log: (l) => process.stderr.write(`provision: ${l}\n`) });
  const server = await startDevServer(
    { ...loadDevServerConfig(), port: await freePort(), ui: { enabled: false }, db_filename: null, log_level: 'error' },
    { cliPath: cli.path, reuse: false },
  );
  const connection = await Connection.connect({ address: server.address });
  const wavesHere = process.argv[2] === 'waves-here';
  const spica = await createSpicaWorker({ address: server.address, namespace: server.namespace, taskQueue: TASK_QUEUE, wavesHere });
  try {
    const client = new Client({ connection, namespace: server.namespace });
    const yaml = wavesHere
      ? HISTORY_FIXTURE_CONFIG_YAML.replace('max_rounds: 1', 'max_rounds: 2')
          .replace('isl: 128', 'isl: 4096')
          .replace('osl: 64', 'osl: 1024')
          .replace('concurrency: 4', 'concurrency: 48')
          .replace('num_request_ratio: 4', 'num_request_ratio: 135')
      : HISTORY_FIXTURE_CONFIG_YAML;
    const config = parseConfigText(yaml, { sourceName: 'history-fixture' });
    const handle = await client.workflow.start<typeof sweep>('sweep', {
      workflowId: HISTORY_FIXTURE_WORKFLOW_ID,
      taskQueue: TASK_QUEUE,
      args: [config],
    });
    await spica.worker.runUntil(handle.result());
    mkdirSync(OUT_DIR, { recursive: true });
    const save = async (workflowId: string, file: string) => {
      const history = await client.workflow.getHandle(workflowId).fetchHistory();
      writeFileSync(path.join(OUT_DIR, file), `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 1)}\n`);
      process.stderr.write(`wrote ${path.relative(process.cwd(), path.join(OUT_DIR, file))} (${history.events?.length ?? 0} events)\n`);
    };
    const mode = config.search_space.deployment_mode[0];
    if (wavesHere) {
      await save(branchWorkflowId(HISTORY_FIXTURE_WORKFLOW_ID, mode), `branchStudy-${mode}.waves-here.json`);
      return;
    }
    await save(HISTORY_FIXTURE_WORKFLOW_ID, 'sweep.json');
    await save(branchWorkflowId(HISTORY_FIXTURE_WORKFLOW_ID, mode), `branchStudy-${mode}.json`);
  } finally {
    await spica.close();
    await connection.close();
    await server.stop();
  }
}

await main();
