// How a branch wave is cut into replay activities (pure; runs in the workflow sandbox). One candidate
// per activity spreads a wave over every worker slot on the task queue; but each activity costs a few
// history events and tens of ms of orchestration, which dominates millisecond replays. So a wave whose
// previous replays were quick is cut into chunks of about UNIT_TARGET_MS of work (never fewer than two
// units, so two workers still share it). Deterministic: the measure is workflow time (replayed from
// history), and the trials never depend on the cut, only the activities do.

/** Work per activity worth its orchestration cost. */
export const UNIT_TARGET_MS = 1000;

/**
 * `candidates` cut into consecutive units (ask order kept); `msPerCandidate` from the last wave, null
 * before one; `maxPerUnit` bounds a unit's payload whatever the wave size (parallel_evals).
 */
export function replayUnits<T>(candidates: readonly T[], msPerCandidate: number | null, maxPerUnit = Infinity): T[][] {
  const n = candidates.length;
  const perUnit =
    msPerCandidate === null || msPerCandidate <= 0
      ? 1
      : Math.max(1, Math.min(Math.ceil(n / 2), maxPerUnit, Math.floor(UNIT_TARGET_MS / msPerCandidate)));
  const units: T[][] = [];
  for (let i = 0; i < n; i += perUnit) units.push(candidates.slice(i, i + perUnit));
  return units;
}
