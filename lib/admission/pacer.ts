// Starts admitted heavy work one job per event-loop iteration, and none in an iteration that accepted a connection.
// Since libuv 1.45 (Node 20 and later) a listening socket accepts one connection per iteration, so under a burst the
// connections behind it (a health probe's among them) wait for as many iterations as there are connections ahead.
// If those iterations also run the burst's work, a probe waits for the whole burst; starting work only in
// iterations that accepted nothing lets the server first take every waiting connection (each costs a parse and an
// admission decision), answer or refuse it, and then work. A storm of new connections that never ends cannot starve
// the work: after MAX_DEFER_MS of deferring, one job runs anyway.

/** Longest run of iterations without starting a job while connections keep arriving. */
const MAX_DEFER_MS = 50;

export type Scheduler = (callback: () => void) => void;

export class Pacer {
  private readonly jobs: (() => void)[] = [];
  private head = 0;
  private scheduled = false;
  private acceptedSinceTick = false;
  private deferringSince: number | undefined;

  constructor(
    private readonly schedule: Scheduler = (callback) => void setImmediate(callback),
    private readonly now: () => number = () => performance.now(),
  ) {}

  get waiting(): number {
    return this.jobs.length - this.head;
  }

  /** The server accepted a connection (its 'connection' event): more may be waiting in the backlog. */
  noteConnection(): void {
    this.acceptedSinceTick = true;
  }

  /** Runs `job` in a later iteration, after every job queued before it. */
  run(job: () => void): void {
    this.jobs.push(job);
    this.wake();
  }

  /** Resolves on this caller's turn: what follows the await runs as that turn's job. */
  wait(): Promise<void> {
    return new Promise((resolve) => this.run(resolve));
  }

  private wake(): void {
    if (this.scheduled || this.waiting === 0) return;
    this.scheduled = true;
    this.schedule(() => this.tick());
  }

  private tick(): void {
    this.scheduled = false;
    if (this.acceptedSinceTick) {
      this.acceptedSinceTick = false;
      const now = this.now();
      this.deferringSince ??= now;
      if (now - this.deferringSince < MAX_DEFER_MS) return this.wake();
    }
    this.deferringSince = undefined;
    const job = this.jobs[this.head]!;
    this.head += 1;
    if (this.head * 2 >= this.jobs.length) {
      this.jobs.splice(0, this.head);
      this.head = 0;
    }
    // Scheduled before running: a job that throws must not stop the others.
    this.wake();
    job();
  }
}
