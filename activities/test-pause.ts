// Test hook for the fault tests (honoured only with SPICA_TEST_HOOKS=1): SPICA_TEST_PAUSE_IN lists
// activity kinds (plan, materialize, ask, replay, report) in which this worker process stops before
// doing the work, so a test can SIGKILL it while it holds that activity. The pause announces itself
// on stderr and lasts until the activity is cancelled (or the process dies).
export type PausableActivity = 'plan' | 'materialize' | 'ask' | 'replay' | 'report';

export const TEST_PAUSE_LINE = 'spica test hook: paused in';

export async function testPause(kind: PausableActivity, signal?: AbortSignal): Promise<void> {
  if (process.env.SPICA_TEST_HOOKS !== '1') return;
  const kinds = (process.env.SPICA_TEST_PAUSE_IN ?? '').split(',').map((s) => s.trim());
  if (!kinds.includes(kind)) return;
  process.stderr.write(`${TEST_PAUSE_LINE} ${kind}\n`);
  await new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    // Keeps the event loop alive without burning CPU; the test kills the process meanwhile.
    const keepAlive = setInterval(() => undefined, 60_000);
    signal?.addEventListener(
      'abort',
      () => {
        clearInterval(keepAlive);
        resolve();
      },
      { once: true },
    );
  });
}
