// The KV block pool of one attention rank (G1) with vLLM-style prefix caching: full prompt blocks are
// registered under their block id (the interned chained hash) once computed, stay reusable after their owners finish, and are
// evicted least-recently-released first when a new allocation needs room. Counts only — block ids
// never matter to timing, so none are kept.

/** Observer of the cached-block set (the router's prefix index listens here). */
export interface KvCacheListener {
  onCached(hash: number): void;
  onEvicted(hash: number): void;
}

import { LruList, type LruNode } from './lru-list.js';

interface CachedBlock extends LruNode {
  hash: number;
  refs: number;
}

export class KvCache {
  /** Blocks owned by requests that carry no (unique) hash: partial tails, outputs, duplicates. */
  private privateBlocks = 0;
  private readonly cached = new Map<number, CachedBlock>();
  /** Unreferenced cached blocks, least recently released first. */
  private readonly lru = new LruList<CachedBlock>();

  constructor(
    readonly capacityBlocks: number,
    readonly prefixCaching: boolean,
    private readonly listener: KvCacheListener | null = null,
  ) {}

  /** Blocks a new allocation can get right now (free + evictable). */
  available(): number {
    return this.capacityBlocks - this.privateBlocks - this.cached.size + this.lru.size;
  }

  /** Blocks referenced by live requests (the router's decode load). */
  activeBlocks(): number {
    return this.privateBlocks + this.cached.size - this.lru.size;
  }

  /** Cached blocks in total (referenced or not): the "radix tree size" tie-breaker. */
  cachedBlocks(): number {
    return this.cached.size;
  }

  has(hash: number): boolean {
    return this.cached.has(hash);
  }

  /** Leading hashes present in the cache, at most `max`. */
  matchPrefix(hashes: Int32Array, max: number): number {
    if (!this.prefixCaching) return 0;
    const n = Math.min(max, hashes.length);
    let i = 0;
    while (i < n && this.cached.has(hashes[i])) i++;
    return i;
  }

  /** Takes a reference on the first `n` hashes (all present: call after matchPrefix). */
  acquire(hashes: Int32Array, n: number, into: number[]): void {
    for (let i = 0; i < n; i++) {
      const h = hashes[i];
      const b = this.cached.get(h)!;
      if (b.refs === 0) this.lru.remove(b);
      b.refs++;
      into.push(h);
    }
  }

  /** Allocates `n` private blocks, evicting LRU cached blocks as needed; false (and no change) if they do not fit. */
  allocate(n: number): boolean {
    if (n <= 0) return true;
    if (this.available() < n) return false;
    let free = this.capacityBlocks - this.privateBlocks - this.cached.size;
    while (free < n) {
      const b = this.lru.popFront()!;
      const h = b.hash;
      this.cached.delete(h);
      this.listener?.onEvicted(h);
      free++;
    }
    this.privateBlocks += n;
    return true;
  }

  /**
   * Registers one of the caller's private blocks under `hash` (its content is now computed). Returns
   * true if the block became a shared cached block (the caller must later release it by hash), false if
   * an identical block is already cached (the caller's copy stays private, as vLLM keeps duplicates).
   */
  promote(hash: number): boolean {
    if (!this.prefixCaching || this.cached.has(hash)) return false;
    this.privateBlocks--;
    this.cached.set(hash, { hash, refs: 1, prev: null, next: null });
    this.listener?.onCached(hash);
    return true;
  }

  /** Frees a request's blocks; cached ones are released tail-first so the tail is evicted first. */
  free(refs: number[], privateBlocks: number): void {
    this.privateBlocks -= privateBlocks;
    for (let i = refs.length - 1; i >= 0; i--) {
      const h = refs[i];
      const b = this.cached.get(h)!;
      if (--b.refs === 0) this.lru.pushBack(b);
    }
  }
}
