// The SQLite connection gate: the app's one better-sqlite3 connection keeps a transaction's BEGIN open across
// awaits (group commit, ./group-commit.ts). The gate lets one holder have the connection at a time, and lets
// single statements outside any transaction wait until the holder is done. Plain synchronous bookkeeping:
// taking a free gate costs no tick.

/** raw: a (group of) store transaction(s); checkpoint: the WAL restart's hold (../sqlite-checkpointer.ts). */
export type GateHolder = "raw" | "checkpoint";
export type GateRelease = () => void;

interface Waiter {
  holder: GateHolder;
  resolve: (release: GateRelease) => void;
}

const FREE: Promise<void> = Promise.resolve();

export class ConnectionGate {
  /** Who holds the connection in a transaction now, if anyone. */
  holder: GateHolder | null = null;
  private readonly queue: Waiter[] = [];
  private endWaiters: (() => void)[] = [];

  /** Takes the gate at once when it is free and nobody queues for it; null otherwise. */
  tryAcquire(holder: GateHolder): GateRelease | null {
    if (this.holder !== null || this.queue.length > 0) return null;
    this.holder = holder;
    return this.releaser();
  }

  /** Takes the gate, in arrival order. */
  acquire(holder: GateHolder): Promise<GateRelease> {
    const release = this.tryAcquire(holder);
    if (release) return Promise.resolve(release);
    return new Promise((resolve) => this.queue.push({ holder, resolve }));
  }

  /** Resolves once nobody holds the gate (a single statement never lands inside a transaction or a hold). */
  untilFree(): Promise<void> {
    if (this.holder === null) return FREE;
    // One promise however many holders come and go before it is free (each promise costs async-hook work).
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.holder === null) resolve();
        else this.endWaiters.push(check);
      };
      this.endWaiters.push(check);
    });
  }

  private releaser(): GateRelease {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.holder = null;
      // Statements waiting for the end of the transaction run first (their continuations are queued now),
      // then the next queued transaction takes the gate.
      const waiting = this.endWaiters;
      this.endWaiters = [];
      for (const resolve of waiting) resolve();
      if (this.queue.length > 0) queueMicrotask(() => this.grantNext());
    };
  }

  private grantNext(): void {
    if (this.holder !== null) return;
    const next = this.queue.shift();
    if (!next) return;
    this.holder = next.holder;
    next.resolve(this.releaser());
  }
}
