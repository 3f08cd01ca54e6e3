// Public surface of the optimizer (ask/tell, thorough enumeration, the space types).
//
// bayesian ("rapid"): a design of the lower and upper corner of every numeric dimension, then
// scrambled Halton (after any injected initial points), until 8 trials are told with ≥ 2 feasible;
// then a Matern-5/2 ARD GP per objective fitted on the asked points (outputs sign-normalized and
// standardized; MAP hyperparameters by warm-started Adam on log-params, refitted when the data grew by
// 10 %, fitted on ≤ 80 observations and conditioned on ≤ 256: best, recent and a strided spread), a
// ±1-label feasibility GP that multiplies the acquisition, and GP-UCB-PE over a deterministic
// candidate set: per batch of three picks one UCB, one trust-region UCB among the incumbent's
// single-coordinate neighbours, one pure exploration (one objective), or random hypervolume
// scalarizations (several). Candidates: every 1–2-coordinate change of the incumbent (finite members,
// continuous bounds/centre/±0.15), random local moves around the best points, Halton and uniform
// points; near-repeats of seen points left out. A tell may carry the point actually evaluated
// (`observed`, e.g. after projection): it is never asked again and feeds the feasibility model.
// With a projector (OptimizerRuntime.project: the branch's latent → legal-config projection, handed to
// createOptimizer/restoreOptimizer, not serialized) bayesian projects the design and every candidate
// and asks only projections not yet asked or evaluated: no repeats, and the GP scores what would
// really be evaluated.
// random: uniform, never repeating a seen point in a finite space. thorough: `enumerateSpace`.
// Pure and deterministic: state() / restoreOptimizer().
export { createOptimizer, restoreOptimizer } from './optimizer.js';
export type { Algorithm, Objective, Optimizer, OptimizerOptions, OptimizerRuntime, OptimizerState, Projector, StoredTrial, Trial } from './optimizer.js';
export { enumerateSpace } from './thorough.js';
export { BAYESIAN_DEFAULTS } from './bayesian.js';
export type { Dimension, DimensionValue, Point } from './space.js';
