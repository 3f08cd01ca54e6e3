// `spica result <id>`: the SweepResult of a completed sweep run (stdout, --json, or files with --out).
import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { InputError } from '../../errors.js';
import { withManagementSession } from '../sweeps/management-session.js';
import { emitSweepResult } from '../sweeps/emit-result.js';
import { fetchSweepResult } from '../sweeps/sweep-outcome.js';
import { STORE_OPTION_USAGE, useStoreFlag } from '../../store/select.js';

const usage = `Usage: spica result <workflow-id> [options]

The SweepResult of a completed sweep run: the ranked table (or Pareto front) and counts, the
SweepResult JSON with --json, and result.json, candidates.csv, report.html with --out DIR.
Results too big for a workflow payload are read from the store the workflow points to (the
local .spica/ directory of the reporting machine, or the shared PostgreSQL store).

Exit codes: 0 ok; 1 no candidate is feasible; 2 unknown id, the run is still running, or it failed
on bad input (the reason with file:line: fix it and sweep again, a resume would fail the same way);
3 the run failed otherwise or was terminated (see \`spica resume\`), or the server is unreachable.

Options:
  --address HOST:PORT  Temporal frontend (default: TEMPORAL_ADDRESS, the temporal.toml profile,
                       else the embedded server of temporal-dev.yaml)
  --namespace NAME     namespace
  --wait               wait for a running sweep to finish
  --json               print the SweepResult as one JSON document
  --out DIR            write result.json, candidates.csv and report.html into DIR
${STORE_OPTION_USAGE}
`;

export const command: Command = {
  name: 'result',
  summary: 'the SweepResult of a completed sweep run (--json, --out DIR)',
  usage,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      options: {
        address: { type: 'string' },
        namespace: { type: 'string' },
        wait: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        out: { type: 'string' },
        store: { type: 'string' },
      },
      allowPositionals: true,
    });
    if (positionals.length !== 1) throw new InputError(`expected exactly one workflow id, got ${positionals.length} (see \`spica result --help\`)`);
    const id = positionals[0];
    useStoreFlag(values.store);
    const result = await withManagementSession(values, `result ${id}`, (s) => fetchSweepResult(s.client, id, { wait: values.wait }));
    return emitSweepResult(result, { json: values.json ?? false, out: values.out }, io);
  },
};
