// `plan` activity: validate the sweep's config (the workflow never touches the filesystem), run
// planSweep (enumeration, search spaces, load-predictor sub-sweep) and return only its small parts:
// each branch's BranchStudyPlan, the config hash, the sub-sweep result, warnings, the trace hash.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { configFromObject, parseConfigText } from '../src/config/load.js';
import type { SmartSearchConfig } from '../src/config/schema.js';
import { SpicaError } from '../src/errors.js';
import type { InputFailureDetails } from '../workflows/input-failure.js';
import { SWEEP_SEARCH_ATTRIBUTES } from '../workflows/search-attributes.js';
import { isYamlInput, type SweepInput, type SweepLabels, type SweepPlanned } from '../workflows/sweep-types.js';
import { cachedSweepPlan } from './sweep-inputs.js';
import { storeConfig } from './context.js';
import { listedSearchAttributes } from './listed-search-attributes.js';
import { testPause } from './test-pause.js';

/**
 * Bad input (config, trace, perf database: a SpicaError with exit code 2) is the user's to fix:
 * retrying cannot help, so fail at once with the error's class as the type and details saying so
 * (workflows/input-failure.ts reads them; the CLI exits 2 with the message).
 */
export function nonRetryable(err: unknown): never {
  if (err instanceof SpicaError && err.exitCode === 2) {
    const issues = (err as { issues?: unknown }).issues;
    const details: InputFailureDetails = issues === undefined ? { exit_code: 2 } : { exit_code: 2, issues };
    throw ApplicationFailure.create({ message: err.message, type: err.name, nonRetryable: true, details: [details] });
  }
  throw err;
}

export function sweepLabels(config: SmartSearchConfig): SweepLabels {
  return {
    model: config.search_space.model_name,
    hardware: config.search_space.hardware_sku,
    goal: config.goal.target,
  };
}

/**
 * Which sweep search attributes the server knows; without a server connection, none. A listing this
 * process already made on the worker's connection (spica sweep's registration) is reused.
 */
async function registeredSearchAttributes(): Promise<{ names: string[]; warning?: string }> {
  const wanted = Object.keys(SWEEP_SEARCH_ATTRIBUTES);
  try {
    const ctx = Context.current();
    const { connection } = ctx.client;
    const namespace = ctx.info.workflowNamespace;
    const custom =
      (namespace === undefined ? undefined : listedSearchAttributes(connection, namespace)) ??
      Object.keys((await connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {});
    const known = new Set(custom);
    const names = wanted.filter((n) => known.has(n));
    const missing = wanted.filter((n) => !known.has(n));
    return {
      names,
      warning: missing.length
        ? `search attributes ${missing.join(', ')} are not registered on the server; the sweep is not indexed by them`
        : undefined,
    };
  } catch (err) {
    return { names: [], warning: `cannot list search attributes (${(err as Error).message}); the sweep is not indexed by them` };
  }
}

export async function plan(input: SweepInput): Promise<SweepPlanned> {
  await testPause('plan');
  let config: SmartSearchConfig;
  let planned: ReturnType<typeof cachedSweepPlan>;
  try {
    config = isYamlInput(input)
      ? parseConfigText(input.configYaml, { sourceName: input.sourceName ?? 'configYaml', baseDir: input.baseDir })
      : configFromObject(input);
    planned = cachedSweepPlan(config);
  } catch (err) {
    nonRetryable(err);
  }
  // The branches send the config to their per-trial activities by this hash (activities/context.ts);
  // the search-attribute listing runs meanwhile.
  const [, attrs] = await Promise.all([storeConfig(config, planned.plan.config_hash), registeredSearchAttributes()]);
  // Operational, not part of the result (runSweepLocal has no server): log it on the worker.
  if (attrs.warning) Context.current().log.warn(attrs.warning);
  return {
    config,
    config_hash: planned.plan.config_hash,
    labels: sweepLabels(config),
    seed: config.sweep.seed,
    plans: planned.plan.branches.map((b) => b.plan),
    load_predictor: planned.plan.load_predictor as unknown as Record<string, unknown>,
    warnings: [...planned.plan.warnings],
    searchAttributes: attrs.names,
    traceSha256: planned.trace.traceSha256,
  };
}

