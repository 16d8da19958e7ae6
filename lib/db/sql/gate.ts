// The SQLite connection gate: one better-sqlite3 connection is shared by Prisma and lib/db/sql, and a
// transaction on it (Prisma's interactive one, or ours) keeps BEGIN open across awaits. The gate lets one
// transaction hold the connection at a time, and lets single statements wait until a transaction they must
// not land in has ended. Plain synchronous bookkeeping: taking a free gate costs no tick.

/** raw: a transaction of lib/db/sql; prisma: Prisma's interactive one; checkpoint: the WAL restart's hold. */
export type GateHolder = "raw" | "prisma" | "checkpoint";
export type GateRelease = () => void;

interface Waiter {
  holder: GateHolder;
  resolve: (release: GateRelease) => void;
}

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

  /** Resolves when the current holder releases (check `holder` again afterwards: the next one may have taken it). */
  released(): Promise<void> {
    return new Promise((resolve) => this.endWaiters.push(resolve));
  }

  /**
   * Resolves once nobody holds the gate, or only `own` does (a single statement may run inside its own kind
   * of transaction, as Prisma's do, but never inside another's or during the checkpointer's hold).
   */
  async untilFree(own?: GateHolder): Promise<void> {
    while (this.holder !== null && this.holder !== own) await this.released();
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
