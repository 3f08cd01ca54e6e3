// The CLI as a process whose reader is gone before it writes (`spica … --json | head -c 200`): no
// EPIPE stack trace, the command's own exit code.
import { describe, expect, it } from 'vitest';
import { spawnSpica } from '../support/spica-process.js';

describe('stdout closed by its reader', () => {
  it('spica configs --json: the output is dropped, no stack trace, exit 0', async () => {
    const p = spawnSpica(['configs', 'examples/moe-disagg-pareto.yaml', '--json']);
    // Closing our end at once: every write the process makes fails with EPIPE.
    p.child.stdout!.destroy();
    expect(await p.exited).toBe(0);
    expect(p.output().stderr).not.toMatch(/EPIPE|Unhandled|at /);
  });

  it('a failing command keeps its exit code', async () => {
    const p = spawnSpica(['configs', 'examples/no-such-config.yaml', '--json']);
    p.child.stdout!.destroy();
    expect(await p.exited).toBe(2);
    expect(p.output().stderr).not.toMatch(/EPIPE|Unhandled/);
  });
});
