// A first-in, first-out queue over an array with a moving head: shift() does not copy the array (Array.prototype.shift
// would, once per item), and the consumed prefix is dropped once it is half the array, so each item costs O(1) amortised.
// The pacer's jobs, a lane's waiters and its round of callers all queue this way.
export class Fifo<T> {
  private readonly items: T[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest item, left in place; undefined when empty. */
  peek(): T | undefined {
    return this.size > 0 ? this.items[this.head] : undefined;
  }

  /** Takes the oldest item; undefined when empty. */
  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.items[this.head]!;
    this.head += 1;
    if (this.head * 2 >= this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    return item;
  }
}
