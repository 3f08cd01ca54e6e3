// `spica deploy <result.json> [--candidate ID] [--out DIR]`: deployment files for one candidate.
import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { InputError } from '../../errors.js';
import { readSweepResult } from '../../results/readResult.js';
import { selectCandidate } from '../../results/deploy/selectCandidate.js';
import { writeDeploymentFiles } from '../../results/deploy/writeDeployment.js';

const usage = `Usage: spica deploy <result.json> [--candidate ID] [--out DIR] [--image IMAGE] [--name NAME]

Writes deployment files for one feasible candidate of a sweep result:
  k8s_deploy.yaml   Dynamo DynamoGraphDeployment (Frontend + router, one worker service per role,
                    Planner when a scaling policy was chosen)
  run_<i>.sh        plain launch script per worker role (start once per replica)
  run_frontend.sh   frontend (+ planner) launch script

Options:
  --candidate ID  candidate id (e.g. candidate-000012). Required for Pareto results, which have no
                  implicit winner; defaults to the top-ranked candidate for single-objective results.
  --out DIR       output directory (default: ./deploy-<candidate id>)
  --image IMAGE   container image for every service (default: the backend's Dynamo runtime image)
  --name NAME     DynamoGraphDeployment name (default: spica-<candidate id>)

Exit codes: 0 ok, 1 nothing feasible to deploy, 2 bad input (unreadable/invalid result.json,
unknown or infeasible candidate, Pareto result without --candidate).
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
    const row = selectCandidate(result, values.candidate);
    const out = values.out ?? `deploy-${row.id}`;
    const { files } = writeDeploymentFiles(result, row, out, { image: values.image, name: values.name });
    io.stderr(`spica deploy: ${row.id} (${row.config.deployment_mode}, ${row.config.backend}, ${row.used_gpus} GPUs)\n`);
    io.stdout(`${files.join('\n')}\n`);
    return 0;
  },
};
