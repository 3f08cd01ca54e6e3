// The forecast loss the sub-sweep scores predictors with: a log1p distance that weighs the token
// demand the planner sizes for (requests × tokens) above the per-request means.

/** e(p, a) = |log1p(max(p, 0)) − log1p(max(a, 0))|. */
export function log1pError(predicted: number, actual: number): number {
  return Math.abs(Math.log1p(Math.max(predicted, 0)) - Math.log1p(Math.max(actual, 0)));
}

export interface WindowLoad {
  numReq: number;
  isl: number;
  osl: number;
}

/** 0.4·e(n̂·î, n·isl) + 0.4·e(n̂·ô, n·osl) + 0.1·e(î, isl) + 0.1·e(ô, osl). */
export function windowForecastLoss(predicted: WindowLoad, actual: WindowLoad): number {
  return (
    0.4 * log1pError(predicted.numReq * predicted.isl, actual.numReq * actual.isl) +
    0.4 * log1pError(predicted.numReq * predicted.osl, actual.numReq * actual.osl) +
    0.1 * log1pError(predicted.isl, actual.isl) +
    0.1 * log1pError(predicted.osl, actual.osl)
  );
}
