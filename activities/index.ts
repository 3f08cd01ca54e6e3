// Every activity the Spica worker registers.
export { plan } from './plan.js';
