// Discrete-event queue: a binary heap over (at_ms, kind, seq) kept in typed arrays (no per-event
// objects). Same-timestamp order follows the kind order below, then insertion order.

export const EventKind = {
  PassEnd: 0,
  WorkerReady: 1,
  TransferDone: 2,
  Arrival: 3,
  /** A request leaves the frontend (tokenised, handed to the router): before the Kick of its instant. */
  Admit: 4,
  Scaling: 5,
  /** A worker checks whether to start a pass — after everything else at that instant, so same-time arrivals share the batch. */
  Kick: 6,
} as const;
export type EventKind = (typeof EventKind)[keyof typeof EventKind];

const SEQ_SPAN = 2 ** 40;

export class EventQueue {
  private at = new Float64Array(1024);
  private key = new Float64Array(1024);
  private data = new Int32Array(1024);
  private n = 0;
  private seq = 0;
  /** Events popped so far (the report's event_count). */
  popped = 0;

  get size(): number {
    return this.n;
  }

  push(atMs: number, kind: EventKind, payload: number): void {
    if (this.n === this.at.length) this.grow();
    const k = kind * SEQ_SPAN + this.seq++;
    let i = this.n++;
    const at = this.at;
    const key = this.key;
    const data = this.data;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (at[p] < atMs || (at[p] === atMs && key[p] < k)) break;
      at[i] = at[p];
      key[i] = key[p];
      data[i] = data[p];
      i = p;
    }
    at[i] = atMs;
    key[i] = k;
    data[i] = payload;
  }

  /** Time of the next event (+∞ if empty). */
  peekAt(): number {
    return this.n === 0 ? Infinity : this.at[0];
  }

  // The popped event, read after pop().
  topAt = 0;
  topKind: EventKind = EventKind.Kick;
  topData = 0;

  /** Pops the next event into topAt/topKind/topData; false if empty. */
  pop(): boolean {
    if (this.n === 0) return false;
    const at = this.at;
    const key = this.key;
    const data = this.data;
    this.topAt = at[0];
    this.topKind = Math.floor(key[0] / SEQ_SPAN) as EventKind;
    this.topData = data[0];
    this.popped++;
    const last = --this.n;
    if (last === 0) return true;
    const la = at[last];
    const lk = key[last];
    const ld = data[last];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= last) break;
      const r = c + 1;
      if (r < last && (at[r] < at[c] || (at[r] === at[c] && key[r] < key[c]))) c = r;
      if (la < at[c] || (la === at[c] && lk < key[c])) break;
      at[i] = at[c];
      key[i] = key[c];
      data[i] = data[c];
      i = c;
    }
    at[i] = la;
    key[i] = lk;
    data[i] = ld;
    return true;
  }

  private grow(): void {
    const cap = this.at.length * 2;
    const at = new Float64Array(cap);
    const key = new Float64Array(cap);
    const data = new Int32Array(cap);
    at.set(this.at);
    key.set(this.key);
    data.set(this.data);
    this.at = at;
    this.key = key;
    this.data = data;
  }
}
