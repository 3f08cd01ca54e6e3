// Maps 53-bit block hashes to dense small integers, once per block per request. Every cache, index
// and map downstream then keys on small integers (V8 Smis): no boxed doubles, far cheaper Map work.
// Open addressing over typed arrays, so interning itself allocates nothing per lookup.

export class BlockInterner {
  private keys = new Float64Array(1 << 16);
  private vals = new Int32Array(1 << 16);
  private mask = (1 << 16) - 1;
  size = 0;

  /** Dense id of `hash` (> 0), assigned in first-seen order: deterministic for a deterministic run. */
  id(hash: number): number {
    let i = (hash >>> 0) & this.mask;
    const keys = this.keys;
    for (;;) {
      const k = keys[i];
      if (k === hash) return this.vals[i];
      if (k === 0) break;
      i = (i + 1) & this.mask;
    }
    keys[i] = hash;
    const v = ++this.size;
    this.vals[i] = v;
    if (this.size * 2 > this.mask) this.grow();
    return v;
  }

  private grow(): void {
    const oldK = this.keys;
    const oldV = this.vals;
    const cap = oldK.length * 2;
    this.keys = new Float64Array(cap);
    this.vals = new Int32Array(cap);
    this.mask = cap - 1;
    for (let j = 0; j < oldK.length; j++) {
      const k = oldK[j];
      if (k === 0) continue;
      let i = (k >>> 0) & this.mask;
      while (this.keys[i] !== 0) i = (i + 1) & this.mask;
      this.keys[i] = k;
      this.vals[i] = oldV[j];
    }
  }
}
