// Which observations a GP is fitted on once there are too many for an O(n³) fit inside a workflow
// task (CLARIFICATIONS §E): the best (by score), the most recent, and an evenly strided spread of
// the rest. Deterministic: depends only on the order and scores of the observations.

/**
 * Indices (ascending) of at most `cap` of `count` observations. `scores` (higher is better) picks
 * the best quarter; without scores the best quarter goes to the spread.
 */
export function selectObservations(count: number, cap: number, scores?: ArrayLike<number>): number[] {
  if (count <= cap) return Array.from({ length: count }, (_, i) => i);
  const chosen = new Uint8Array(count);
  const nBest = scores ? Math.floor(cap / 4) : 0;
  const nRecent = Math.floor(cap / 4);
  if (scores) {
    const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);
    for (let k = 0; k < nBest; k++) chosen[order[k]] = 1;
  }
  let recent = 0;
  for (let i = count - 1; i >= 0 && recent < nRecent; i--) {
    if (!chosen[i]) {
      chosen[i] = 1;
      recent++;
    }
  }
  const rest: number[] = [];
  for (let i = 0; i < count; i++) if (!chosen[i]) rest.push(i);
  const nSpread = cap - nBest - recent;
  for (let k = 0; k < nSpread; k++) chosen[rest[Math.floor((k * rest.length) / nSpread)]] = 1;
  const out: number[] = [];
  for (let i = 0; i < count; i++) if (chosen[i]) out.push(i);
  return out;
}
