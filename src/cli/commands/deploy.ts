// `spica deploy <result.json> [--candidate ID] [--out DIR]`: deployment files for one candidate, or for
// every member of a Pareto front (one folder each) when no candidate is named.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { InputError } from '../../errors.js';
import { readSweepResult } from '../../results/readResult.js';
import { selectCandidates } from '../../results/deploy/selectCandidate.js';
import { writeFrontIndex } from '../../results/deploy/frontIndex.js';
import type { CandidateRow } from '../../search/sweepResult.js';
import { writeDeploymentFiles } from '../../results/deploy/writeDeployment.js';

const usage = `Usage: spica deploy <result.json> [--candidate ID] [--out DIR] [--image IMAGE] [--name NAME]

Writes deployment files for one feasible candidate of a sweep result (for a Pareto result without
--candidate: for every front member, each in DIR/<candidate id>/, with DIR/front.md listing them):
  k8s_deploy.yaml   Dynamo DynamoGraphDeployment (Frontend + router, one worker service per role,
                    Planner when a scaling policy was chosen)
  run_<i>.sh        plain launch script per worker role (start once per replica)
  run_frontend.sh   frontend (+ planner) launch script

Options:
  --candidate ID  candidate id (e.g. candidate-000012); defaults to the top-ranked candidate of a
                  single-objective result, and to every front member of a Pareto result
  --out DIR       output directory (default: ./deploy-<candidate id>, or ./deploy-front)
  --image IMAGE   container image for every service (default: the backend's Dynamo runtime image)
  --name NAME     DynamoGraphDeployment name (default: spica-<candidate id>; NAME-<candidate id> per front member)

Exit codes: 0 ok, 1 nothing feasible to deploy, 2 bad input (unreadable/invalid result.json,
unknown or infeasible candidate).
`;

export const command: Command = {
  name: 'deploy',
  summary: 'write Kubernetes (Dynamo) and launch-script deployment files for a candidate',
  usage,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        candidate: { type: 'string' },
        out: { type: 'string' },
        image: { type: 'string' },
        name: { type: 'string' },
      },
    });
    if (positionals.length !== 1) throw new InputError(`expected exactly one result.json path, got ${positionals.length}\n\n${usage}`);
    const result = readSweepResult(positionals[0]);
    const rows = selectCandidates(result, values.candidate);
    const describe = (row: CandidateRow) => `${row.id} (${row.config.deployment_mode}, ${row.config.backend}, ${row.used_gpus} GPUs)`;
    if (values.candidate !== undefined || !('pareto_front' in result.views)) {
      const [row] = rows;
      const { files } = writeDeploymentFiles(result, row, values.out ?? `deploy-${row.id}`, { image: values.image, name: values.name });
      io.stderr(`spica deploy: ${describe(row)}\n`);
      io.stdout(`${files.join('\n')}\n`);
      return 0;
    }
    const out = values.out ?? 'deploy-front';
    const files: string[] = [];
    for (const row of rows) {
      const name = values.name === undefined ? undefined : `${values.name}-${row.id}`;
      files.push(...writeDeploymentFiles(result, row, join(out, row.id), { image: values.image, name }).files);
    }
    files.push(writeFrontIndex(result, rows, out));
    io.stderr(`spica deploy: the Pareto front, ${rows.length} candidate(s): ${rows.map(describe).join('; ')}\n`);
    io.stdout(`${files.join('\n')}\n`);
    return 0;
  },
};
