// SIGINT/SIGTERM → an AbortSignal, so long-running commands shut down in their own order
// (worker drains, then the embedded server stops) and tests can abort them directly.

/** Aborts on the first SIGINT or SIGTERM; `dispose()` removes the listeners. */
export function processShutdownSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => controller.abort(sig);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** Resolves when the signal aborts (immediately if it already has). */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
