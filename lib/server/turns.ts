// Event-loop turns for CPU-heavy work (bench/README.md "What changed" 15). Since libuv 1.45 (Node 20) a
// listening socket accepts one connection per event-loop iteration (libuv PR #3696). An iteration that
// runs every ready request to completion lasts as long as all of them together: with dozens of searches
// queued an iteration lasts a second or more, so a busy server admits about one new connection per
// iteration and its requests wait many seconds (figures: bench/README.md). Heavy work therefore takes a turn: the queue starts at most one job per iteration, in
// arrival order, which keeps iterations about one job long, admits new connections at the pace work is
// done, and serves every waiting request in order.

/** Runs a callback in a later phase of the event loop (setImmediate; injectable for tests). */
export type Scheduler = (callback: () => void) => void;

const runOnCheckPhase: Scheduler = (callback) => void setImmediate(callback);

export class TurnQueue {
  private readonly jobs: (() => void)[] = [];
  private scheduled = false;

  constructor(private readonly schedule: Scheduler = runOnCheckPhase) {}

  /** Jobs waiting for their turn. */
  get waiting(): number {
    return this.jobs.length;
  }

  /** Queues `job`; it runs alone in a later iteration, after every job queued before it. */
  run(job: () => void): void {
    this.jobs.push(job);
    if (!this.scheduled) {
      this.scheduled = true;
      this.schedule(() => this.next());
    }
  }

  /** Resolves on this caller's turn: what follows the await runs as that turn's job. */
  wait(): Promise<void> {
    return new Promise((resolve) => this.run(resolve));
  }

  private next(): void {
    this.scheduled = false;
    const job = this.jobs.shift();
    if (this.jobs.length > 0) {
      this.scheduled = true;
      this.schedule(() => this.next());
    }
    // A failing job must not stop the queue: it was scheduled on before running.
    job?.();
  }
}

/** The process's one queue: every heavy request shares it, so turns are taken in arrival order. */
const globalForTurns = globalThis as typeof globalThis & { agentGateTurns?: TurnQueue };

export function turns(): TurnQueue {
  // One queue per process although the module is bundled twice (server.ts's bundle and Next's routes).
  globalForTurns.agentGateTurns ??= new TurnQueue();
  return globalForTurns.agentGateTurns;
}
