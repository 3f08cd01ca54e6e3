// Every activity the Spica worker registers.
export { plan } from './plan.js';
export { materializeCandidates } from './materialize.js';
export { replayWave } from './replay-wave.js';
export { reportSweep } from './report.js';
export { askOptimizer } from './ask-optimizer.js';
export { askAndMaterialize } from './ask-and-materialize.js';
export { recallTrials, storeTrialChunk } from './trial-chunks.js';
export { replayCandidate } from './replay-candidate.js';
export { waveHere } from './wave-here.js';
