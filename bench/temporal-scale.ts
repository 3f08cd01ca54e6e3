// Scale of the durable sweep (issue 16): the large-sweep scenario (test/support/large-sweep.ts) —
// a thorough sweep of 11,664 trials over agg + disagg on two `spica worker` processes sharing one
// PostgreSQL store, terminated at 30 %, resumed, its result read by a third process — against the
// same scenario at 1/12 the size (972 trials) as the baseline, measured in the same run. Prints wall
// times, the workers' CPU time, the largest payload and history over every run involved, the stored
// result size, and the per-trial ratios (≈ 1 means nothing slows down or grows with the trial count
// except the result itself). Then the rapid scenario (bayesian, 10,521 trials, 7,680 told to one
// branch's optimizer), whose continue-as-new state no longer grows with the told trials. All figures
// come from real Temporal and PostgreSQL servers started here. Part `scale` of `npm run bench temporal`
// (BENCH_TEMPORAL_ONLY=scale runs only it); BENCH_SCALE_ONLY=thorough|rapid picks one scenario.
import { Client, Connection } from '@temporalio/client';
import { provisionTemporalCli } from '../src/cli/temporal/cli-binary.js';
import { loadDevServerConfig } from '../src/cli/temporal/dev-config.js';
import { startDevServer } from '../src/cli/temporal/dev-server.js';
import { freePort } from '../src/cli/temporal/free-port.js';
import { largeSweepYaml, runLargeSweep, type LargeSweepFigures } from '../test/support/large-sweep.js';
import { createTestDatabase, startPostgres } from '../test/support/postgres.js';

const kb = (b: number) => `${(b / 1024).toFixed(0)} KB`;

function show(label: string, f: LargeSweepFigures): void {
  const wall = f.firstRunSeconds + f.resumeSeconds;
  console.log(
    `${label}: ${f.result.counts.evaluated} trials (terminated at ${f.trialsAtTermination}, resumed), wall ${wall.toFixed(1)} s ` +
      `(first run ${f.firstRunSeconds.toFixed(1)} s + resume ${f.resumeSeconds.toFixed(1)} s), worker CPU ${f.workerCpuSeconds?.toFixed(1) ?? 'n/a'} s; ` +
      `largest payload ${kb(f.payloads.largest.bytes)} (${f.payloads.largest.eventType}, ${f.payloads.largest.workflowId}), ` +
      `largest history ${kb(f.payloads.largestHistoryBytes)}, ${f.payloads.runs} runs / ${f.payloads.events} events; stored result ${kb(f.resultBytes)}; ` +
      `largest continue-as-new state ${kb(f.payloads.largestByType.WorkflowExecutionContinuedAsNew ?? 0)}; resumed run cache hits ${f.result.counts.cache_hits}`,
  );
}

export async function runScale(): Promise<void> {
  const cli = await provisionTemporalCli({ log: () => undefined });
  const server = await startDevServer(
    { ...loadDevServerConfig(), port: await freePort(), ui: { enabled: false }, db_filename: null, log_level: 'error', startup_timeout_seconds: 90 },
    { cliPath: cli.path, reuse: false },
  );
  const pg = await startPostgres();
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });
  try {
    const scenario = async (yaml: string) =>
      runLargeSweep({ client, address: server.address, namespace: server.namespace, storeUrl: await createTestDatabase(pg.url, 'spica_bench'), yaml });
    const only = process.env.BENCH_SCALE_ONLY ?? 'thorough,rapid';
    if (only.includes('thorough')) {
      const small = await scenario(largeSweepYaml({ temperatures: '[0.0]', overlaps: '[0.5]' }));
      show('baseline (1/12)', small);
      const large = await scenario(largeSweepYaml());
      show('large', large);
      const perTrial = (f: LargeSweepFigures, v: number) => v / f.result.counts.evaluated;
      const ratio = (a: number, b: number) => (a / b).toFixed(2);
      console.log(
        `ratios large / baseline per trial: wall ${ratio(perTrial(large, large.firstRunSeconds + large.resumeSeconds), perTrial(small, small.firstRunSeconds + small.resumeSeconds))}` +
          (large.workerCpuSeconds && small.workerCpuSeconds ? `, worker CPU ${ratio(perTrial(large, large.workerCpuSeconds), perTrial(small, small.workerCpuSeconds))}` : '') +
          `; largest payload large / baseline ${ratio(large.payloads.largest.bytes, small.payloads.largest.bytes)} ` +
          `(trials ×${ratio(large.result.counts.evaluated, small.result.counts.evaluated)}); largest payload / 1 MB ${ratio(large.payloads.largest.bytes, 1_000_000)}`,
      );
    }
    if (only.includes('rapid')) {
      const rapid = await runLargeSweep({
        client,
        address: server.address,
        namespace: server.namespace,
        storeUrl: await createTestDatabase(pg.url, 'spica_bench'),
        yaml: largeSweepYaml({ policy: 'rapid' }),
        terminateAt: 0.1,
      });
      show('rapid (bayesian)', rapid);
    }
  } finally {
    await connection.close();
    await server.stop();
    await pg.stop();
  }
}
