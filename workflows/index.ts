// Every workflow type the Spica worker registers (the worker bundles this file).
export { sweep } from './sweep.js';
export { branchStudy } from './branch-study.js';
