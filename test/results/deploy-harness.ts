// Shared by the deploy tests: the CLI run in-process, and the launch-script flags read back.
import { expect } from 'vitest';
import { main } from '../../src/cli/main.js';

/** `spica <argv>` in this process, capturing stdout and stderr. */
export async function spica(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTty: false });
  return { code, stdout, stderr };
}

/** `--flag value` / bare `--flag` → map (values never start with "--"). */
export function flags(args: string[]): Map<string, string | true> {
  const m = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    expect(args[i].startsWith('--'), `token ${args[i]} in ${args.join(' ')}`).toBe(true);
    const next = args[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      m.set(args[i], next);
      i++;
    } else m.set(args[i], true);
  }
  return m;
}
