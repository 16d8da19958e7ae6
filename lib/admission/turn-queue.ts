// Starts admitted heavy work a few jobs per event-loop iteration, and none in an iteration that accepted a connection.
// Since libuv 1.45 (Node 20 and later) a listening socket accepts one connection per iteration, so under a burst the
// connections behind it (a health probe's among them) wait for as many iterations as there are connections ahead.
// If those iterations also run the burst's work, a probe waits for the whole burst; starting work only in
// iterations that accepted nothing lets the server first take every waiting connection (each costs a parse and an
// admission decision), answer or refuse it, and then work. A storm of new connections that never ends cannot starve
// the work: after MAX_DEFER_MS of deferring, one job runs anyway.
//
// How many jobs an iteration starts follows how long iterations take: one while they run long (a search each),
// twice as many after a short one, so cheap work on steady connections is not held to one job per iteration (each
// iteration costs a poll and a timer check), while iterations stay about ITERATION_TARGET_MS long and a new
// connection never waits long for its turn to be accepted.
//
// A job may carry an expiry: admitted requests that wait longer than their lane's wait for a turn are refused (a
// cheap 503) instead of started late, so when work arrives faster than the pacer starts it, every request is still
// answered within about twice that wait (the lane's queue, then the turn).

import { Fifo } from "./fifo";

/** Longest run of iterations without starting a job while connections keep arriving. */
const MAX_DEFER_MS = 50;
/** An iteration shorter than this lets the next one start twice as many jobs; a longer one halves them. */
const ITERATION_TARGET_MS = 4;
/** Most jobs started in one iteration. */
const MAX_JOBS_PER_ITERATION = 64;

export type Scheduler = (callback: () => void) => void;

/** Refuse the job instead of starting it once it has waited `maxWaitMs` for its turn. */
export interface Expiry {
  maxWaitMs: number;
  expire: () => void;
}

interface Queued {
  job: () => void;
  /** When the job expires (performance.now() time); Infinity: never. */
  expiresAt: number;
  expire: (() => void) | undefined;
}

export class TurnQueue {
  private readonly jobs = new Fifo<Queued>();
  private scheduled = false;
  private acceptedSinceTick = false;
  private deferringSince: number | undefined;
  /** Jobs the next iteration may start. */
  private perIteration = 1;
  /** When the previous iteration's turn began, while turns follow each other (undefined after the queue ran dry). */
  private lastTickAt: number | undefined;

  constructor(
    private readonly schedule: Scheduler = (callback) => void setImmediate(callback),
    private readonly now: () => number = () => performance.now(),
  ) {}

  get waiting(): number {
    return this.jobs.size;
  }

  /** Jobs the next iteration may start (for tests). */
  get jobsPerIteration(): number {
    return this.perIteration;
  }

  /** The server accepted a connection (its 'connection' event): more may be waiting in the backlog. */
  noteConnection(): void {
    this.acceptedSinceTick = true;
  }

  /** Runs `job` in a later iteration, after every job queued before it, or expires it after `expiry.maxWaitMs`. */
  run(job: () => void, expiry?: Expiry): void {
    this.jobs.push({ job, expiresAt: expiry ? this.now() + expiry.maxWaitMs : Infinity, expire: expiry?.expire });
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
    try {
      this.turn(this.now());
    } finally {
      // Also after a job or a refusal that threw: the others must still run.
      if (this.waiting === 0) this.lastTickAt = undefined;
      this.wake();
    }
  }

  private turn(now: number): void {
    this.expireDue(now);
    if (this.waiting === 0) return;
    // The time since the previous turn is one iteration: the jobs it started and everything else it ran.
    if (this.lastTickAt !== undefined) {
      const iteration = now - this.lastTickAt;
      this.perIteration = iteration < ITERATION_TARGET_MS ? Math.min(this.perIteration * 2, MAX_JOBS_PER_ITERATION) : Math.max(1, this.perIteration >> 1);
    }
    this.lastTickAt = now;
    if (this.acceptedSinceTick) {
      this.acceptedSinceTick = false;
      // Connections are arriving: one job at a time again, so the next accept waits for one job at most.
      this.perIteration = 1;
      this.deferringSince ??= now;
      if (now - this.deferringSince < MAX_DEFER_MS) return;
    }
    this.deferringSince = undefined;
    for (let started = 0; started < this.perIteration && this.waiting > 0; started++) this.take().job();
  }

  /**
   * Refuses the jobs at the head of the queue whose wait is over, in every iteration (deferring or not): a refusal is
   * a short answer, not the work the pacer spreads. Jobs wait in arrival order, so the oldest are at the head.
   */
  private expireDue(now: number): void {
    while (this.waiting > 0) {
      const head = this.jobs.peek()!;
      if (head.expire === undefined || head.expiresAt > now) return;
      this.take();
      head.expire();
    }
  }

  private take(): Queued {
    return this.jobs.shift()!;
  }
}
