// The providers every sweep has: the router and the planner (Clarification B: their knobs stay flat in
// search_space; their dimensions are namespaced `adapter::dynamo.router::…` / `adapter::dynamo.planner::…`).
import { plannerProvider } from './plannerProvider.js';
import type { SweepConfigProvider } from './provider.js';
import { routerProvider } from './routerProvider.js';

export const BUILTIN_PROVIDERS: readonly SweepConfigProvider<unknown>[] = [
  routerProvider as SweepConfigProvider<unknown>,
  plannerProvider as SweepConfigProvider<unknown>,
];
