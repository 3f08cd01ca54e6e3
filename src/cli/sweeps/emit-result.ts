// How `spica sweep` (in-process or on Temporal) and `spica result` hand over a SweepResult: the ranked
// table or one JSON document on stdout, the result files with --out, the exit code.
import path from 'node:path';
import type { CommandIo } from '../command.js';
import { writeResultFiles } from '../../results/files.js';
import type { SweepResult } from '../../search/sweepResult.js';
import { formatSweepResult } from '../temporal/sweep-summary.js';

/** Prints the result (JSON or the ranked table), writes --out files; exit 1 if nothing is feasible. */
export function emitSweepResult(result: SweepResult, args: { json: boolean; out?: string }, io: CommandIo): number {
  if (args.out !== undefined) {
    const { files } = writeResultFiles(result, path.resolve(args.out));
    io.stderr(`wrote ${files.join(', ')}\n`);
  }
  io.stdout(args.json ? `${JSON.stringify(result)}\n` : formatSweepResult(result));
  return result.counts.feasible > 0 ? 0 : 1;
}
