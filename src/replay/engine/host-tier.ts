import { LruList, type LruNode } from './lru-list.js';

// G2 host-memory offload tier of one rank: an LRU set of block hashes written through from G1 after
// compute (the D2H copy is asynchronous and assumed to keep up), restored over the H2D link when a new
// request's prefix continues past what G1 holds. The restore latency delays the request's admission.

export interface HostTierConfig {
  numBlocks: number;
  /** Bytes of one block (block_size × kv_bytes_per_token). */
  blockBytes: number;
  h2dGBps: number;
  offloadBatchSize: number;
  /** Fixed latency per restore batch, ms. */
  batchLatencyMs: number;
}

interface HostBlock extends LruNode {
  hash: number;
}

export class HostTier {
  private readonly blocks = new Map<number, HostBlock>();
  private readonly lru = new LruList<HostBlock>();
  /** The H2D link is one queue per rank: restores serialize on it. */
  private linkFreeAtMs = 0;

  constructor(readonly cfg: HostTierConfig, private readonly onChange: ((hash: number, present: boolean) => void) | null) {}

  has(hash: number): boolean {
    return this.blocks.has(hash);
  }

  store(hash: number): void {
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
    const b: HostBlock = { hash, prev: null, next: null };
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

  /** Schedules the restore of `n` blocks at `nowMs`; returns when they are in G1. */
  restore(n: number, nowMs: number): number {
    const { blockBytes, h2dGBps, offloadBatchSize, batchLatencyMs } = this.cfg;
    const batches = Math.ceil(n / Math.max(1, offloadBatchSize));
    const transferMs = h2dGBps > 0 ? (n * blockBytes) / (h2dGBps * 1e6) : 0;
    const start = Math.max(nowMs, this.linkFreeAtMs);
    this.linkFreeAtMs = start + transferMs + batches * batchLatencyMs;
    return this.linkFreeAtMs;
  }
}
