// How long a run's workflow tasks have waited for a worker, on this machine's clock (waiting-workflow-tasks.ts).
import { describe, expect, it } from 'vitest';
import { WorkflowTaskWatch } from '../../src/cli/temporal/waiting-workflow-tasks.js';

describe('workflow task watch', () => {
  it('counts a waiting task from when it was first seen, forgets it once started, and starts over for the next task', () => {
    const watch = new WorkflowTaskWatch();
    expect(watch.observe(['sweep@1.0'], 1_000)).toBe(0); // first seen now
    expect(watch.observe(['sweep@1.0'], 6_000)).toBe(5_000);
    expect(watch.observe(['sweep@1.0', 'sweep/branch-agg@7.0'], 11_000)).toBe(10_000); // the longest
    expect(watch.observe(['sweep/branch-agg@7.0'], 16_000)).toBe(5_000); // the sweep's task started
    expect(watch.observe([], 21_000)).toBe(0);
    expect(watch.observe(['sweep/branch-agg@7.0'], 26_000)).toBe(0); // seen again after a gap: waits anew
    expect(watch.observe(['sweep/branch-agg@30.0'], 31_000)).toBe(0); // a new task of the same workflow
  });
});
