// `spica list`: sweep runs on the Temporal server, newest first.
import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { InputError } from '../../errors.js';
import { listStatusValue } from '../sweeps/list-query.js';
import { withManagementSession } from '../sweeps/management-session.js';
import { formatSweepList, listSweeps } from '../sweeps/sweep-listing.js';

const usage = `Usage: spica list [options]

List sweep runs (workflow type 'sweep'), newest first: id, status, start and close time, model,
hardware, goal (the search attributes each sweep sets).

Options:
  --address HOST:PORT  Temporal frontend (default: TEMPORAL_ADDRESS, the temporal.toml profile,
                       else the embedded server of temporal-dev.yaml, started by \`spica server\`)
  --namespace NAME     namespace (default: TEMPORAL_NAMESPACE, the profile, or 'default')
  --model M            only sweeps of this model (e.g. meta-llama/Llama-3.1-8B-Instruct)
  --hardware H         only sweeps on this hardware SKU (e.g. h100_sxm)
  --goal G             only sweeps with this goal target (throughput, latency, pareto, …)
  --status S           running | completed | failed | canceled | terminated | timed_out | continued_as_new
  --limit N            at most N runs (default 20)
  --json               print {"sweeps":[…]} as one JSON document
`;

export const command: Command = {
  name: 'list',
  summary: 'list sweep runs on the Temporal server (newest first)',
  usage,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      options: {
        address: { type: 'string' },
        namespace: { type: 'string' },
        model: { type: 'string' },
        hardware: { type: 'string' },
        goal: { type: 'string' },
        status: { type: 'string' },
        limit: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      allowPositionals: true,
    });
    if (positionals.length > 0) throw new InputError(`unexpected argument '${positionals[0]}' (see \`spica list --help\`)`);
    const limit = values.limit === undefined ? 20 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new InputError(`--limit must be a positive integer, got '${values.limit}'`);
    if (values.status !== undefined) listStatusValue(values.status); // exit 2 before connecting
    const filters = { model: values.model, hardware: values.hardware, goal: values.goal, status: values.status };
    const rows = await withManagementSession(values, 'list', (s) => listSweeps(s.client, filters, limit));
    io.stdout(values.json ? `${JSON.stringify({ sweeps: rows })}\n` : formatSweepList(rows));
    return 0;
  },
};
