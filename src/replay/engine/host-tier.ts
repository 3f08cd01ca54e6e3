import { LruList, type LruNode } from './lru-list.js';

// G2 host-memory offload tier of one rank: an LRU set of block hashes written through from G1 after
// compute over the D2H link (asynchronous: it never stalls the engine, but a block can only be restored
// once its copy has landed), restored over the H2D link when a new request's prefix continues past what
// G1 holds. The restore latency delays the request's admission. The router sees a block as soon as its
// copy is queued (it cannot know the copy's progress either).

export interface HostTierConfig {
  numBlocks: number;
  /** Bytes of one block (block_size × kv_bytes_per_token). */
  blockBytes: number;
  h2dGBps: number;
  /** G1→G2 copy bandwidth, GB/s (0 = instant). */
  d2hGBps: number;
  /** Blocks per copy batch, in both directions; each batch pays `batchLatencyMs`. */
  offloadBatchSize: number;
  /** Fixed latency per restore batch, ms. */
  batchLatencyMs: number;
}

interface HostBlock extends LruNode {
  hash: number;
  /** When its D2H copy has landed in host memory. */
  readyAtMs: number;
}

export class HostTier {
  private readonly blocks = new Map<number, HostBlock>();
  private readonly lru = new LruList<HostBlock>();
  /** The H2D link is one queue per rank: restores serialize on it. */
  private linkFreeAtMs = 0;
  /** The D2H link, likewise one queue per rank; blocks of one batch share its fixed latency. */
  private d2hFreeAtMs = 0;
  private d2hBatchFill = 0;

  constructor(readonly cfg: HostTierConfig, private readonly onChange: ((hash: number, present: boolean) => void) | null) {}

  has(hash: number): boolean {
    return this.blocks.has(hash);
  }

  store(hash: number, nowMs = 0): void {
    const hit = this.blocks.get(hash);
    if (hit) {
      this.lru.remove(hit);
      this.lru.pushBack(hit);
      return;
    }
    if (this.blocks.size >= this.cfg.numBlocks) {
      const old = this.lru.popFront()!;
      this.blocks.delete(old.hash);
      this.onChange?.(old.hash, false);
    }
    const { blockBytes, d2hGBps, offloadBatchSize, batchLatencyMs } = this.cfg;
    const start = Math.max(nowMs, this.d2hFreeAtMs);
    if (start > this.d2hFreeAtMs || this.d2hBatchFill >= Math.max(1, offloadBatchSize)) this.d2hBatchFill = 0;
    const batchCost = this.d2hBatchFill === 0 ? batchLatencyMs : 0;
    this.d2hBatchFill++;
    this.d2hFreeAtMs = start + batchCost + (d2hGBps > 0 ? blockBytes / (d2hGBps * 1e6) : 0);
    const b: HostBlock = { hash, prev: null, next: null, readyAtMs: this.d2hFreeAtMs };
    this.blocks.set(hash, b);
    this.lru.pushBack(b);
    this.onChange?.(hash, true);
  }

  /** Hashes[from..] present in G2, contiguously, at most up to `max`. */
  matchFrom(hashes: Int32Array, from: number, max: number): number {
    const n = Math.min(max, hashes.length);
    let i = from;
    while (i < n && this.blocks.has(hashes[i])) i++;
    return i - from;
  }

  /** When the last of hashes[from..from+n) has landed in host memory. */
  landedAt(hashes: Int32Array, from: number, n: number): number {
    let t = 0;
    for (let i = from; i < from + n; i++) t = Math.max(t, this.blocks.get(hashes[i])?.readyAtMs ?? 0);
    return t;
  }

  /** Schedules the restore of `n` blocks at `nowMs` (not before `notBeforeMs`); returns when they are in G1. */
  restore(n: number, nowMs: number, notBeforeMs = 0): number {
    const { blockBytes, h2dGBps, offloadBatchSize, batchLatencyMs } = this.cfg;
    const batches = Math.ceil(n / Math.max(1, offloadBatchSize));
    const transferMs = h2dGBps > 0 ? (n * blockBytes) / (h2dGBps * 1e6) : 0;
    const start = Math.max(nowMs, this.linkFreeAtMs, notBeforeMs);
    this.linkFreeAtMs = start + transferMs + batches * batchLatencyMs;
    return this.linkFreeAtMs;
  }
}
