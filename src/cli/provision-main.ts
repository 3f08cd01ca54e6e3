// `npm run provision`: make sure the Temporal CLI is available and print its path on stdout.
import { SpicaError } from '../errors.js';
import { provisionTemporalCli } from './temporal/cli-binary.js';

try {
  const cli = await provisionTemporalCli({ log: (line) => process.stderr.write(`provision: ${line}\n`) });
  process.stderr.write(`provision: temporal CLI (${cli.source}) ready\n`);
  process.stdout.write(`${cli.path}\n`);
} catch (err) {
  process.stderr.write(`provision: ${(err as Error).message}\n`);
  process.exitCode = err instanceof SpicaError ? err.exitCode : 3;
}
