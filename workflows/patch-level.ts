// One history marker for a set of patches that every new run takes anyway. Each `patched(id)` writes a
// marker and a search-attribute update (TemporalChangeVersion) into the history: 10 of each at the
// start of every branch run, 20 of the dense example's 35 branch events. A run started on code that
// knows `level` records only the level's marker and takes every patch it covers as applied; a history
// recorded before the level (no such marker) asks each patch as it was recorded.
// A patch added after a level is NOT covered by it: it gets its own `patched()` call (or a new level
// whose set includes the old level's patches), since a run recorded at this level never asked it.
import { patched } from '@temporalio/workflow';

/** `since(id)`: whether patch `id` (one of `covers`) applies to this run. Call in workflow code only. */
export function patchLevel(level: string, covers: readonly string[]): (id: string) => boolean {
  const atLevel = patched(level);
  const known = new Set(covers);
  return (id) => {
    if (!known.has(id)) throw new Error(`patch '${id}' is not covered by patch level '${level}'`);
    return atLevel || patched(id);
  };
}
