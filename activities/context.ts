// The config of a branch context passed by reference: the `plan` activity stores the validated config
// under its hash (kind 'config'), the branch workflow sends only the hash to the per-trial activities
// (materialize, replay), and they read it back once per worker process. A worker must see the store
// the plan activity wrote (the same requirement as the trial chunks: a shared store for several machines).
import type { SmartSearchConfig } from '../src/config/schema.js';
import { configHash } from '../src/search/sweepPlan.js';
import { spicaStore } from '../src/store/select.js';
import type { ActivityContext, BranchContext } from '../workflows/sweep-types.js';

const CACHED_CONFIGS = 8;
const configs = new Map<string, SmartSearchConfig>();

/** Stores a config under its hash (idempotent: the same config always writes the same text). */
export async function storeConfig(config: SmartSearchConfig, hash: string): Promise<void> {
  if (configs.has(hash)) return; // this process stored or read it already
  const store = spicaStore();
  if ((await store.getBlob('config', hash)) === null) await store.putBlob('config', hash, JSON.stringify(config));
  remember(hash, config);
}

function remember(hash: string, config: SmartSearchConfig): void {
  configs.delete(hash);
  configs.set(hash, config);
  while (configs.size > CACHED_CONFIGS) configs.delete(configs.keys().next().value!);
}

/** The full context: as given, or with the config read from the store by its hash. */
export async function resolveContext(context: ActivityContext): Promise<BranchContext> {
  if ('config' in context) return context;
  const hash = context.config_ref;
  let config = configs.get(hash);
  if (!config) {
    const store = spicaStore();
    const text = await store.getBlob('config', hash);
    if (text === null) throw new Error(`config ${hash} is not in ${store.describe()} (the worker that planned this sweep wrote it to its store; workers on several machines need a shared store)`);
    config = JSON.parse(text) as SmartSearchConfig;
    if (configHash(config) !== hash) throw new Error(`config ${hash} in ${store.describe()} does not hash to its name`);
  }
  remember(hash, config);
  return { config, mode: context.mode, traceSha256: context.traceSha256, config_hash: hash };
}
