// SIGINT/SIGTERM/SIGHUP → an AbortSignal, so long-running commands shut down in their own order
// (worker drains, then the embedded server stops) and tests can abort them directly. SIGHUP is the
// terminal (or ssh session) going away: left to node's default it ended the process on the spot,
// and an embedded server the sweep had started (its own process group) ran on, orphaned.

const SHUTDOWN_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Aborts on the first SIGINT, SIGTERM or SIGHUP; `dispose()` removes the listeners. */
export function processShutdownSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => controller.abort(sig);
  for (const sig of SHUTDOWN_SIGNALS) process.once(sig, onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      for (const sig of SHUTDOWN_SIGNALS) process.off(sig, onSignal);
    },
  };
}

/** Resolves when the signal aborts (immediately if it already has). */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
