// `spica status <id>`: a sweep run's status and, when a worker answers the query, its progress.
import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { InputError } from '../../errors.js';
import { withManagementSession } from '../sweeps/management-session.js';
import { formatSweepStatus, sweepStatus } from '../sweeps/sweep-status.js';

const usage = `Usage: spica status <workflow-id> [options]

Status, start/close time and labels of a sweep run; plus, when a worker polls its task queue, the
per-branch progress from the 'progress' query (round, trials done/wanted, counts, best so far, ETA).
A closed run's query also needs a worker (queries replay the workflow); without one only what
describe gives is shown, with a note saying so.

Options:
  --address HOST:PORT  Temporal frontend (default: TEMPORAL_ADDRESS, the temporal.toml profile,
                       else the embedded server of temporal-dev.yaml)
  --namespace NAME     namespace
  --json               print the status as one JSON document
`;

export const command: Command = {
  name: 'status',
  summary: 'status and per-branch progress of a sweep run',
  usage,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { address: { type: 'string' }, namespace: { type: 'string' }, json: { type: 'boolean', default: false } },
      allowPositionals: true,
    });
    if (positionals.length !== 1) throw new InputError(`expected exactly one workflow id, got ${positionals.length} (see \`spica status --help\`)`);
    const id = positionals[0];
    const report = await withManagementSession(values, `status ${id}`, (s) => sweepStatus(s.client, s.connection, s.namespace, id));
    io.stdout(values.json ? `${JSON.stringify(report)}\n` : formatSweepStatus(report));
    return 0;
  },
};
