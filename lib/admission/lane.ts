// One class of work's admission: at most `inFlight` requests run at once, at most `queue` more wait their turn in
// arrival order, and a request that waited `maxWaitMs` without a turn is refused. What is refused is answered at
// once and cheaply (HTTP 503), so a burst costs the server what it admits, never more: memory stays bounded by the
// bounds, not by how many clients arrive together.

/** A request waiting for its turn. */
interface Waiter {
  start: () => void;
  refuse: () => void;
  /** True once the client has gone: it is dropped when its turn comes. */
  gone: () => boolean;
  enqueuedAt: number;
}

export interface LaneBounds {
  /** Requests of this class running at once. */
  inFlight: number;
  /** Requests waiting beyond that; one more is refused at once. */
  queue: number;
  /** Longest wait for a turn; then the request is refused. */
  maxWaitMs: number;
}

export type Entry = "started" | "queued" | "refused";

export class AdmissionLane {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  /** Index of the first live entry of `waiting` (a shift() per turn would copy the array). */
  private head = 0;

  constructor(
    readonly bounds: LaneBounds,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get inFlight(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length - this.head;
  }

  /**
   * Starts the request now, queues it, or refuses it when the queue is full. A started request must call
   * `leave()` exactly once when it is answered or abandoned; a queued one gets `start` or `refuse` later.
   */
  enter(start: () => void, refuse: () => void, gone: () => boolean): Entry {
    if (this.running < this.bounds.inFlight && this.queued === 0) {
      this.running += 1;
      start();
      return "started";
    }
    if (this.queued >= this.bounds.queue) return "refused";
    this.waiting.push({ start, refuse, gone, enqueuedAt: this.now() });
    return "queued";
  }

  /** A started request is done: the next live waiter, if any, takes its place. */
  leave(): void {
    this.running = Math.max(0, this.running - 1);
    this.startWaiters();
  }

  /** Refuses every waiter that has waited longer than maxWaitMs and drops those whose client left (a timer calls it). */
  expire(): number {
    const deadline = this.now() - this.bounds.maxWaitMs;
    let refused = 0;
    while (this.queued > 0) {
      const first = this.waiting[this.head]!;
      if (!first.gone() && first.enqueuedAt > deadline) break;
      this.take();
      if (!first.gone()) {
        refused += 1;
        first.refuse();
      }
    }
    return refused;
  }

  private startWaiters(): void {
    while (this.running < this.bounds.inFlight && this.queued > 0) {
      const next = this.take();
      if (next.gone()) continue;
      this.running += 1;
      next.start();
    }
  }

  private take(): Waiter {
    const waiter = this.waiting[this.head]!;
    this.head += 1;
    // Compact once the consumed prefix is half the array: amortised O(1) per waiter.
    if (this.head * 2 >= this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
    return waiter;
  }
}
