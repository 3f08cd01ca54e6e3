// resolveSweepOutcome: what `spica sweep`, `spica result` and `spica resume` make of the sweep
// workflow's result. The final progress the result carries is left out; the SweepResult is checked
// against the strict v1 schema (parsed without zod's JIT: the same checks, one parse per process).
import { describe, expect, it } from 'vitest';
import { runLocalSweep } from '../../activities/local-sweep.js';
import { completedMeanwhile, resolveSweepOutcome } from '../../src/cli/sweeps/sweep-outcome.js';
import { parseConfigText } from '../../src/config/load.js';
import { TemporalUnavailable } from '../../src/errors.js';
import { SweepResultSchema, type SweepResult } from '../../src/search/sweepResult.js';
import type { SweepOutcome, SweepProgress } from '../../workflows/sweep-types.js';
import { TINY_CONFIG_YAML } from '../temporal/harness.js';

const progress: SweepProgress = { phase: 'done', stop_requested: false, branches: [] };

describe('resolveSweepOutcome', () => {
  it('returns the SweepResult without the progress, as the JIT-compiled schema parses it', async () => {
    const result = await runLocalSweep(parseConfigText(TINY_CONFIG_YAML));
    const resolved = await resolveSweepOutcome({ ...result, progress } as SweepOutcome, 'wf-1');
    expect(resolved).not.toHaveProperty('progress');
    expect(resolved).toEqual(SweepResultSchema.parse(result));
    // A result recorded before it carried progress, and one missing a defaulted field, resolve alike.
    const { hypervolume: _dropped, ...older } = result;
    expect(await resolveSweepOutcome(older as SweepResult, 'wf-1')).toEqual(SweepResultSchema.parse(older));
  });

  it('rejects what is not a SweepResult v1, naming the first issues', async () => {
    const result = await runLocalSweep(parseConfigText(TINY_CONFIG_YAML));
    const broken = { ...result, counts: { ...result.counts, feasible: 'many' }, extra: 1, progress } as unknown as SweepOutcome;
    const err = await resolveSweepOutcome(broken, 'wf-2').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemporalUnavailable);
    expect((err as Error).message).toMatch(/^sweep wf-2 returned something that is not a SweepResult v1 \(/);
    expect((err as Error).message).toMatch(/counts\.feasible: /);
    expect((err as Error).message).toMatch(/extra/);
  });
});

describe('completedMeanwhile (a Ctrl-C that falls after the run completed)', () => {
  const handle = (status: string | Error) => ({
    describe: async () => {
      if (status instanceof Error) throw status;
      return { status: { name: status } };
    },
  });
  it('hands back the result of a completed run, and nothing for a run still going or ended otherwise', async () => {
    expect(await completedMeanwhile(handle('COMPLETED'), Promise.resolve('the result'))).toBe('the result');
    const pending = new Promise<string>(() => undefined);
    for (const status of ['RUNNING', 'TERMINATED', 'FAILED']) expect(await completedMeanwhile(handle(status), pending)).toBeNull();
    // The server unreachable at that moment: the run is not known to have completed.
    expect(await completedMeanwhile(handle(new Error('unavailable')), pending)).toBeNull();
  });
});
