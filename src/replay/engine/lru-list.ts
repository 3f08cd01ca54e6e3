// Intrusive doubly linked LRU list. (A JS Map used as an LRU degrades: deleting from its front leaves
// tombstones every `keys().next()` must skip, which made eviction quadratic.)

export interface LruNode {
  prev: LruNode | null;
  next: LruNode | null;
}

export class LruList<T extends LruNode> {
  private head: T | null = null;
  private tail: T | null = null;
  size = 0;

  /** Appends as most recently used. */
  pushBack(n: T): void {
    n.prev = this.tail;
    n.next = null;
    if (this.tail) this.tail.next = n;
    else this.head = n;
    this.tail = n;
    this.size++;
  }

  remove(n: T): void {
    if (n.prev) n.prev.next = n.next;
    else this.head = n.next as T | null;
    if (n.next) n.next.prev = n.prev;
    else this.tail = n.prev as T | null;
    n.prev = null;
    n.next = null;
    this.size--;
  }

  /** Removes and returns the least recently used node. */
  popFront(): T | null {
    const n = this.head;
    if (n) this.remove(n);
    return n;
  }
}
