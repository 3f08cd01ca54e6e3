// How a row's mean TTFT / TPOT are read off a replay's completed requests (Clarification D
// definitions): over all of them, without the start-up wave, or the wave and the rest weighted by a
// burst share (evaluate.ts `MeanWindow`). Pure.

export interface WindowParts {
  burstTtftMs: number;
  restTtftMs: number;
  burstTpotMs: number;
  restTpotMs: number;
}

export type Done = { id: number; arrivalMs: number; firstTokenMs: number; doneMs: number; emitted: number };

/** Mean TTFT and TPOT (Clarification D definitions) over the completed requests with id ≥ skipBelowId. */
export function meanLatencies(done: readonly Done[], skipBelowId: number): { ttftMs: number; tpotMs: number; n: number } {
  let ttft = 0;
  let tpot = 0;
  let n = 0;
  let nTpot = 0;
  for (const r of done) {
    if (r.id < skipBelowId) continue;
    const t = r.firstTokenMs - r.arrivalMs;
    ttft += t;
    n++;
    if (r.emitted >= 2) {
      tpot += (r.doneMs - r.arrivalMs - t) / (r.emitted - 1);
      nTpot++;
    }
  }
  return { ttftMs: n > 0 ? ttft / n : NaN, tpotMs: nTpot > 0 ? tpot / nTpot : NaN, n };
}

/** Means of the start-up wave (ids < concurrency) and of the rest (the wave's when nothing followed it). */
export function windowParts(done: readonly Done[], concurrency: number): WindowParts {
  const burst = meanLatencies(done.filter((r) => r.id < concurrency), 0);
  const rest = meanLatencies(done, concurrency);
  const restOk = rest.n > 0 && rest.tpotMs > 0;
  const b = burst.n > 0 ? burst : rest;
  const r = restOk ? rest : burst;
  return { burstTtftMs: b.ttftMs, restTtftMs: r.ttftMs, burstTpotMs: b.tpotMs, restTpotMs: r.tpotMs };
}

/** A row's TTFT / TPOT from its window parts at burst share s. */
export function atBurstShare(p: WindowParts, s: number): { ttftMs: number; tpotMs: number } {
  return { ttftMs: s * p.burstTtftMs + (1 - s) * p.restTtftMs, tpotMs: s * p.burstTpotMs + (1 - s) * p.restTpotMs };
}
