// One class of work's admission: at most `inFlight` requests run at once, at most `queue` more wait their turn, and a
// request that waited `maxWaitMs` without a turn is refused. What is refused is answered at once and cheaply (HTTP 503),
// so a burst costs the server what it admits, never more: memory stays bounded by the bounds, not by how many clients
// arrive together.
//
// With a caller share (issue 41), one caller key (lib/http/client-ip.ts: an address, an IPv6 /64) may hold at most
// `share.inFlight` of the running requests and `share.queue` of the waiting ones; one more is refused at once
// ("over_share", a 429 for the caller) before it takes anything shared. Waiters queue per caller, and a freed slot goes
// to the callers in turn (round robin), each starting its oldest waiter: a caller with thirty waiting requests delays
// a newcomer by one request, not thirty. Each operation is a Map lookup and a few array steps, never a scan.
//
// A running request that waits on the fleet's shared store (lib/admission/slot.ts) gives its lane slot back meanwhile
// ("suspended"), so the lane's slots run work instead of holding waits; when the store answers, it takes the next free
// slot before any waiter starts (it was admitted first). A suspended request counts against the queue's bound, so the
// lane never holds more requests than `inFlight + queue`, and it still counts as running for its caller's share: the
// slot it frees goes to the others, never to more of that caller's own requests.
import { Fifo } from "./fifo";

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
  /** What one caller may hold of `inFlight` and of `queue`; none: callers are not told apart. */
  share?: { inFlight: number; queue: number };
}

/** started: runs now; queued: waits its turn; refused: the lane's queue is full; over_share: the caller's share is. */
export type Entry = "started" | "queued" | "refused" | "over_share";

/** A suspended request whose store has answered, waiting for a slot ahead of the waiters. */
interface Resumer {
  state: CallerState;
  start: () => void;
  /** True once the client has gone: its turn is skipped. */
  gone: () => boolean;
}

/** One caller's requests in the lane: how many run (suspended ones included), and its waiters in arrival order. */
class CallerState {
  running = 0;
  /** Made at its first wait: most callers' requests start at once, and their state lives one request. */
  waiters: Fifo<Waiter> | null = null;
  /** Whether it is in the lane's round of callers waiting for a slot. */
  inRound = false;

  constructor(readonly key: string) {}

  get waiting(): number {
    return this.waiters === null ? 0 : this.waiters.size;
  }
}

/** The key of callers that are not told apart (a lane without shares, or a request without a caller key). */
const ANYONE = "";

export class AdmissionLane {
  private running = 0;
  private waitingTotal = 0;
  private suspendedTotal = 0;
  /** Suspended requests whose store answered, in the order it did: they take freed slots first. */
  private readonly resumers = new Fifo<Resumer>();
  private readonly callers = new Map<string, CallerState>();
  /** Callers below their share with waiters, in the order they get a freed slot. */
  private readonly round = new Fifo<CallerState>();

  constructor(
    readonly bounds: LaneBounds,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get inFlight(): number {
    return this.running;
  }

  get queued(): number {
    return this.waitingTotal;
  }

  /** Started requests waiting on the shared store without a slot. */
  get suspended(): number {
    return this.suspendedTotal;
  }

  /** What one caller holds now (for tests and the share warning). */
  holding(caller: string): { running: number; waiting: number } {
    const state = this.callers.get(this.bounds.share ? caller : ANYONE);
    return { running: state?.running ?? 0, waiting: state?.waiting ?? 0 };
  }

  /**
   * Starts the request now, queues it, or refuses it: "refused" when the lane's queue is full, "over_share" when the
   * caller already holds its share. A started request must call `leave(caller)` exactly once when it is answered or
   * abandoned; a queued one gets `start` or `refuse` later.
   */
  enter(start: () => void, refuse: () => void, gone: () => boolean, caller: string = ANYONE): Entry {
    const share = this.bounds.share;
    const key = share ? caller : ANYONE;
    let state = this.callers.get(key);
    if (state === undefined) {
      state = new CallerState(key);
      this.callers.set(key, state);
    }
    const mayRun = share === undefined || state.running < share.inFlight;
    if (mayRun && this.running < this.bounds.inFlight && this.round.size === 0 && this.resumers.size === 0) {
      this.running += 1;
      state.running += 1;
      start();
      return "started";
    }
    if (share !== undefined && state.waiting >= share.queue) return this.refusal(state, "over_share");
    if (this.waitingTotal + this.suspendedTotal >= this.bounds.queue) return this.refusal(state, "refused");
    (state.waiters ??= new Fifo<Waiter>()).push({ start, refuse, gone, enqueuedAt: this.now() });
    this.waitingTotal += 1;
    if (mayRun && !state.inRound) this.enterRound(state);
    return "queued";
  }

  /** A started request of `caller` is done: the next caller in the round, if any, takes its place. */
  leave(caller: string = ANYONE): void {
    this.running = Math.max(0, this.running - 1);
    this.callerDone(caller);
    this.startWaiters();
  }

  /**
   * A started request of `caller` gives its lane slot back while it waits on the shared store: the next waiter of
   * another caller (or of this one, below its share) starts in its place. False (it keeps its slot) when the queue's
   * bound has no room for it to wait apart.
   */
  suspend(caller: string = ANYONE): boolean {
    const state = this.callers.get(this.bounds.share ? caller : ANYONE);
    if (state === undefined || state.running === 0 || this.running === 0) return false;
    if (this.waitingTotal + this.suspendedTotal >= this.bounds.queue) return false;
    this.running -= 1;
    this.suspendedTotal += 1;
    this.startWaiters();
    return true;
  }

  /**
   * The store answered a suspended request of `caller`: `start` runs when it has a lane slot again, now if one is
   * free, else before any waiter. Never refused nor expired: it was admitted, and part of its work is done.
   */
  resume(caller: string, start: () => void, gone: () => boolean): void {
    const state = this.callers.get(this.bounds.share ? caller : ANYONE);
    if (state === undefined) return start();
    this.resumers.push({ state, start, gone });
    this.startWaiters();
  }

  /** A suspended request's client left before its store answered: it holds nothing more. */
  drop(caller: string = ANYONE): void {
    this.suspendedTotal = Math.max(0, this.suspendedTotal - 1);
    this.callerDone(caller);
    this.startWaiters();
  }

  /** One request of `caller` (running or suspended) ended: below its share again, its waiters may have a free slot. */
  private callerDone(caller: string): void {
    const state = this.callers.get(this.bounds.share ? caller : ANYONE);
    if (state === undefined) return;
    state.running = Math.max(0, state.running - 1);
    if (state.waiting > 0 && !state.inRound) this.enterRound(state);
    else this.forgetIfIdle(state);
  }

  /** Refuses every waiter that has waited longer than maxWaitMs and drops those whose client left (a timer calls it). */
  expire(): number {
    const deadline = this.now() - this.bounds.maxWaitMs;
    let refused = 0;
    for (const state of this.callers.values()) {
      const waiters = state.waiters;
      for (let first = waiters?.peek(); waiters && first !== undefined && (first.gone() || first.enqueuedAt <= deadline); first = waiters.peek()) {
        waiters.shift();
        this.waitingTotal -= 1;
        if (!first.gone()) {
          refused += 1;
          first.refuse();
        }
      }
      if (!state.inRound) this.forgetIfIdle(state);
    }
    return refused;
  }

  private refusal(state: CallerState, entry: "refused" | "over_share"): Entry {
    this.forgetIfIdle(state);
    return entry;
  }

  /** A caller with nothing running or waiting leaves the map, so a scan of many addresses costs no memory. */
  private forgetIfIdle(state: CallerState): void {
    if (state.running === 0 && state.waiting === 0 && !state.inRound) this.callers.delete(state.key);
  }

  private enterRound(state: CallerState): void {
    state.inRound = true;
    this.round.push(state);
  }

  private startWaiters(): void {
    while (this.running < this.bounds.inFlight && this.resumers.size > 0) {
      const { state, start, gone } = this.resumers.shift()!;
      this.suspendedTotal -= 1;
      if (gone()) {
        // Its client left while it waited for the slot: the request is over for its caller too.
        this.callerDone(state.key);
        continue;
      }
      this.running += 1;
      start();
    }
    while (this.running < this.bounds.inFlight && this.round.size > 0) {
      const state = this.round.shift()!;
      state.inRound = false;
      let next: Waiter | undefined;
      while (state.waiting > 0) {
        const candidate = state.waiters!.shift()!;
        this.waitingTotal -= 1;
        if (!candidate.gone()) {
          next = candidate;
          break;
        }
      }
      if (next === undefined) {
        this.forgetIfIdle(state);
        continue;
      }
      this.running += 1;
      state.running += 1;
      // Still below its share with more waiting: back to the end of the round, after every other caller's turn.
      const share = this.bounds.share;
      if (state.waiting > 0 && (share === undefined || state.running < share.inFlight)) this.enterRound(state);
      next.start();
    }
  }
}
