// Domain errors that cross module boundaries. The CLI maps `exitCode` to the process exit status
// (README "Exit codes"): 1 nothing feasible, 2 bad input, 3 Temporal or provisioning failure.

export class SpicaError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
  }
}

/** Bad flags, unknown model or SKU, illegal pinned config … (exit 2). */
export class InputError extends SpicaError {
  constructor(message: string) {
    super(message, 2);
  }
}

/** A (SKU, backend) pair without fitted perf-model coefficients; never silently replaced by a naive model. */
export class NoPerfDatabase extends SpicaError {
  constructor(readonly sku: string, readonly backend?: string) {
    super(
      backend
        ? `NoPerfDatabase: no calibrated perf-model coefficients for backend '${backend}' on '${sku}' (run \`npm run calibrate\` or pick another SKU/backend)`
        : `NoPerfDatabase: hardware '${sku}' has no calibrated perf-model coefficients`,
      2,
    );
  }
}

/** No KV-feasible parallel shape within the budget for one deployment_mode branch. */
export class NoViableParallelConfig extends SpicaError {
  constructor(readonly mode: string, detail: string) {
    super(`NoViableParallelConfig (${mode}): ${detail}`, 2);
  }
}

/** The Temporal CLI could not be found/installed, or the server/worker is unreachable (exit 3). */
export class TemporalUnavailable extends SpicaError {
  constructor(message: string) {
    super(message, 3);
  }
}

/** The shared store (PostgreSQL) stayed unreachable longer than a call waits for it (exit 3). */
export class StoreUnavailable extends SpicaError {
  constructor(message: string) {
    super(message, 3);
  }
}

/** An error and its causes, outermost first (by shape: failures crossing the workflow sandbox are no `instanceof Error` here); at most 8 deep. */
export function* causeChain(err: unknown): Generator<object> {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 8; e = (e as { cause?: unknown }).cause, depth++) yield e;
}
