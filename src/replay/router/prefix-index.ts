// The router's view of which target (worker × rank slot) holds which cached block: block hash →
// bitmask of slots, one Map per 32 slots. Overlap of a request with every slot is one walk over its
// block hashes, stopping once no slot still matches.

export class PrefixIndex {
  private readonly words: Map<number, number>[] = [];

  add(hash: number, slot: number): void {
    const w = slot >>> 5;
    let m = this.words[w];
    if (m === undefined) {
      m = new Map();
      while (this.words.length < w) this.words.push(new Map());
      this.words[w] = m;
    }
    m.set(hash, (m.get(hash) ?? 0) | (1 << (slot & 31)));
  }

  remove(hash: number, slot: number): void {
    const m = this.words[slot >>> 5];
    if (m === undefined) return;
    const v = (m.get(hash) ?? 0) & ~(1 << (slot & 31));
    if (v === 0) m.delete(hash);
    else m.set(hash, v);
  }

  /** out[slot] = number of leading `hashes` cached on that slot (slots < out.length). */
  overlaps(hashes: Int32Array, limit: number, out: Int32Array): void {
    out.fill(0);
    const n = Math.min(limit, hashes.length);
    for (let w = 0; w < this.words.length; w++) {
      const m = this.words[w];
      if (m.size === 0 || n === 0) continue;
      let alive = m.get(hashes[0]) ?? 0;
      let j = 0;
      while (alive !== 0 && j < n) {
        const bits = j === 0 ? alive : m.get(hashes[j]) ?? 0;
        let dead = alive & ~bits;
        while (dead !== 0) {
          const b = 31 - Math.clz32(dead & -dead);
          const slot = (w << 5) | b;
          if (slot < out.length) out[slot] = j;
          dead &= dead - 1;
        }
        alive &= bits;
        j++;
      }
      while (alive !== 0) {
        const b = 31 - Math.clz32(alive & -alive);
        const slot = (w << 5) | b;
        if (slot < out.length) out[slot] = j;
        alive &= alive - 1;
      }
    }
  }
}
