// Ring-buffer deque: FCFS waiting queues need O(1) pop-front and push-front (preempted requests
// return to the head), which plain arrays only give in O(n).

export class Deque<T> {
  private buf: (T | undefined)[];
  private head = 0;
  private len = 0;

  constructor(capacity = 16) {
    this.buf = new Array<T | undefined>(Math.max(4, capacity));
  }

  get size(): number {
    return this.len;
  }

  peek(): T | undefined {
    return this.len === 0 ? undefined : this.buf[this.head];
  }

  at(i: number): T {
    return this.buf[(this.head + i) % this.buf.length] as T;
  }

  push(x: T): void {
    if (this.len === this.buf.length) this.grow();
    this.buf[(this.head + this.len) % this.buf.length] = x;
    this.len++;
  }

  pushFront(x: T): void {
    if (this.len === this.buf.length) this.grow();
    this.head = (this.head - 1 + this.buf.length) % this.buf.length;
    this.buf[this.head] = x;
    this.len++;
  }

  shift(): T | undefined {
    if (this.len === 0) return undefined;
    const x = this.buf[this.head];
    this.buf[this.head] = undefined;
    this.head = (this.head + 1) % this.buf.length;
    this.len--;
    return x;
  }

  private grow(): void {
    const next = new Array<T | undefined>(this.buf.length * 2);
    for (let i = 0; i < this.len; i++) next[i] = this.buf[(this.head + i) % this.buf.length];
    this.buf = next;
    this.head = 0;
  }
}
