// Public surface of the optimizer (ask/tell, thorough enumeration, the space types).
//
// bayesian ("rapid"): scrambled-Halton design (after any injected initial points) until 8 trials are
// told with ≥ 2 feasible; then a Matern-5/2 ARD GP per objective (outputs sign-normalized and
// standardized; MAP hyperparameters by warm-started Adam on log-params, fitted on ≤ 80 observations
// and conditioned on ≤ 500: best, recent and a strided spread), a ±1-label feasibility GP that
// multiplies the acquisition, and GP-UCB-PE with every third pick a fantasy-conditioned UCB pick (one
// objective) or random hypervolume scalarizations (several) over a deterministic candidate set (Halton,
// uniform, and local moves around the best points that change 1–3 dimensions; near-repeats of seen
// points left out). A tell may carry the point actually evaluated (`observed`, e.g. after projection):
// the GP then learns from both. random: uniform, never repeating a seen point in a
// finite space. thorough: `enumerateSpace`. Pure and deterministic: state() / restoreOptimizer().
export { createOptimizer, restoreOptimizer } from './optimizer.js';
export type { Algorithm, Objective, Optimizer, OptimizerOptions, OptimizerState, StoredTrial, Trial } from './optimizer.js';
export { enumerateSpace } from './thorough.js';
export { BAYESIAN_DEFAULTS } from './bayesian.js';
export type { Dimension, DimensionValue, Point } from './space.js';
