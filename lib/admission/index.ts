// Admission control for `npm start` (server.ts's request listener): every request belongs to a class of work,
// each class has its own bounded lane (lib/admission/lane.ts), and what a full lane cannot take is refused at once
// with HTTP 503 + Retry-After. Classes are apart so that a burst of one kind never starves another: a flood of
// anonymous searches leaves own-account reads, the token endpoint and sign-in pages their own room, and the
// probes (/healthz, /readyz, /metrics) and Next's static files are never queued. When the V8 heap fills up,
// anonymous costly work is refused first, then everything but own-account reads and tokens (lib/admission/heap.ts).
// Within each lane one caller key holds at most a share of the slots and of the queue (issue 41; lib/admission/lane.ts):
// past it the caller is refused with a 429 at once, before it takes anything shared, so one client cannot shut the
// others out of a class. Which class a path is in comes from the route table (lib/routes), handed in by the server.
// On Vercel the platform bounds each function's concurrency itself; this module is not mounted there.
import type { IncomingMessage, ServerResponse } from "node:http";
import { AdmissionLane, type LaneBounds } from "./lane";
import { HeapPressure } from "./heap";
import { runHoldingSlot, Slot } from "./slot";
import type { TurnQueue } from "./turn-queue";

export const WORK_CLASSES = ["account", "token", "pages", "public", "general"] as const;
/**
 * account: own-account reads (the Bearer routes); token: the token and revocation endpoints; pages: sign-in and
 * signed-in pages and their form posts; public: anonymous costly reads and writes (MCP, A2A, /ask, batch, the
 * simulator, registration, the map search); general: every other page, twin, document and discovery file.
 */
export type WorkClass = (typeof WORK_CLASSES)[number];

/**
 * Why a request was refused: its lane's queue was full, it waited too long, the heap is nearly full, or its caller
 * already holds its share of the lane (answered 429, not 503: the caller, not the service, must slow down).
 */
export type ShedReason = "queue_full" | "queue_timeout" | "heap" | "caller_share";

export type AdmissionBounds = Record<WorkClass, LaneBounds>;

/**
 * Each class's bounds from the configuration (lib/config: ADMISSION_*), all with the same longest wait and the same
 * caller share (a fraction of each bound; none: callers are not told apart).
 */
export function admissionBounds(lanes: Record<WorkClass, { inFlight: number; queue: number }>, maxWaitMs: number, share?: number): AdmissionBounds {
  const bounds = {} as AdmissionBounds;
  for (const workClass of WORK_CLASSES) {
    const lane = lanes[workClass];
    bounds[workClass] = { ...lane, maxWaitMs, ...(share === undefined ? {} : { share: callerShare(lane, share) }) };
  }
  return bounds;
}

export interface AdmissionOptions {
  bounds: AdmissionBounds;
  /** Heap use (share of V8's limit) from which `public` work is refused; `general` and `pages` from halfway to 1. */
  heapShedShare: number;
  /** Answers a refused request (HTTP 503 or 429 with Retry-After, in the body shape of its surface); null: unqueued work. */
  refuse: (req: IncomingMessage, res: ServerResponse, workClass: WorkClass | null, reason: ShedReason) => void;
  /** Counts a refusal (the metrics). */
  onShed?: (workClass: WorkClass | "unqueued", reason: ShedReason) => void;
  /** Unqueued requests (probes, static files) one caller may have in progress at once; none: no bound. */
  unqueuedPerCaller?: number;
  /**
   * Spends one unit of the caller's budget for unqueued work (false: none left). A bound on how many run at once does
   * not bound how much CPU a client that asks again the instant it is answered takes; a rate does.
   */
  chargeUnqueued?: (req: IncomingMessage, caller: string) => boolean;
  heap?: HeapPressure;
  /**
   * Starts the heavy classes' work (lib/admission/turn-queue.ts); own-account reads and tokens start at once. None (unit
   * tests of the lanes alone): every class starts as soon as its lane admits it.
   */
  pacer?: TurnQueue;
  /**
   * Called once, the first time a caller is refused its share after every request for SINGLE_CALLER_SECONDS came
   * from that one caller key: the usual cause is a proxy in front that TRUSTED_PROXY does not name.
   */
  onSingleCaller?: (caller: string) => void;
  now?: () => number;
}

/** Classes whose work is started by the pacer; the others are cheap enough to run as soon as they are admitted. */
const PACED: ReadonlySet<WorkClass> = new Set(["pages", "public", "general"]);

/**
 * The internal target of proxy.ts's markdown rewrites. Next's custom server may run a rewrite as a second request to
 * this same server: that request gets a lane of its own, as wide as the general lane's slots and queue together, so
 * twins that hold every general slot never wait for slots their own second requests need, and a client that calls
 * the target directly is still bounded.
 */
const REWRITE_TARGET_PREFIX = "/page-markdown";

/** What admission needs to know of a request (its route's class, lib/routes; its caller key, lib/http/client-ip.ts). */
export interface AdmissionTicket {
  /** null: never queued (probes, static files). */
  workClass: WorkClass | null;
  caller: string;
}

/** One caller's share of a lane's bounds: `share` of each, at least one running request. */
export function callerShare(lane: { inFlight: number; queue: number }, share: number): { inFlight: number; queue: number } {
  return { inFlight: Math.max(1, Math.ceil(lane.inFlight * share)), queue: Math.ceil(lane.queue * share) };
}

/** Seconds of requests from one caller key alone after which a share refusal says the caller is probably a proxy. */
const SINGLE_CALLER_SECONDS = 10;

/** What a lane holds now (for /metrics). */
export interface LaneState {
  inFlight: number;
  queued: number;
}

export class Admission {
  private readonly lanes: Record<WorkClass, AdmissionLane>;
  /** The markdown rewrites' second requests (REWRITE_TARGET_PREFIX), counted as general work. */
  private readonly rewrites: AdmissionLane;
  private readonly heap: HeapPressure;
  private readonly pacer: TurnQueue | undefined;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly options: AdmissionOptions) {
    this.lanes = {
      account: new AdmissionLane(options.bounds.account),
      token: new AdmissionLane(options.bounds.token),
      pages: new AdmissionLane(options.bounds.pages),
      public: new AdmissionLane(options.bounds.public),
      general: new AdmissionLane(options.bounds.general),
    };
    const general = options.bounds.general;
    this.rewrites = new AdmissionLane({ inFlight: general.inFlight + general.queue, queue: general.inFlight + general.queue, maxWaitMs: general.maxWaitMs });
    this.heap = options.heap ?? new HeapPressure();
    this.pacer = options.pacer;
  }

  /** The server accepted a connection (http.Server's 'connection' event). */
  noteConnection(): void {
    this.pacer?.noteConnection();
  }

  /** Starts the timer that refuses requests waiting too long (unref'd: it never keeps the process alive). */
  start(): this {
    if (this.sweeper) return this;
    const shortestWait = Math.min(...WORK_CLASSES.map((c) => this.options.bounds[c].maxWaitMs));
    this.sweeper = setInterval(() => this.sweep(), Math.max(10, Math.min(250, Math.floor(shortestWait / 4))));
    this.sweeper.unref();
    this.heap.start();
    return this;
  }

  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.heap.stop();
  }

  state(): Record<WorkClass, LaneState> {
    const out = {} as Record<WorkClass, LaneState>;
    for (const c of WORK_CLASSES) out[c] = { inFlight: this.lanes[c].inFlight, queued: this.lanes[c].queued };
    return out;
  }

  /** Refuses the waiters that waited too long, in every lane. */
  sweep(): void {
    for (const c of WORK_CLASSES) {
      // A lane's waiters refuse themselves through the callbacks they were queued with.
      this.lanes[c].expire();
    }
    this.rewrites.expire();
  }

  /**
   * Runs `handle` for the request now or on its lane's turn, or answers it with a refusal. The lane's slot is
   * given back when the answer is finished or the connection closes, whichever comes first, and while the request
   * waits on the shared store. `handle` learns whether the request has had its pacer turn (then it needs no other).
   */
  admit(req: IncomingMessage, res: ServerResponse, ticket: AdmissionTicket, handle: (hadTurn: boolean) => void): void {
    const { workClass, caller } = ticket;
    if (workClass === null) return this.admitUnqueued(req, res, caller, handle);
    this.noteCaller(caller);
    if (this.heapRefuses(workClass)) return this.shed(req, res, workClass, "heap");
    const lane = req.url?.startsWith(REWRITE_TARGET_PREFIX) ? this.rewrites : this.lanes[workClass];
    const start = (): void => {
      // The request runs holding its slot; it gives the slot back while it waits on the shared store (./slot.ts).
      const slot = new Slot(lane, caller);
      res.once("close", () => slot.release());
      if (!this.pacer || !PACED.has(workClass)) return runHoldingSlot(slot, () => handle(false));
      this.pacer.run(
        () => {
          // A client that left while its job waited: its connection's close has given the slot back already.
          if (!gone()) runHoldingSlot(slot, () => handle(true));
        },
        // Its slot is held while it waits for a turn: waiting as long again as its lane's queue allows is refused too.
        {
          maxWaitMs: lane.bounds.maxWaitMs,
          expire: () => {
            if (!gone()) this.shed(req, res, workClass, "queue_timeout");
          },
        },
      );
    };
    const gone = (): boolean => req.destroyed || req.socket.destroyed || res.writableEnded;
    const entry = lane.enter(start, () => this.shed(req, res, workClass, "queue_timeout"), gone, caller);
    if (entry === "refused") this.shed(req, res, workClass, "queue_full");
    else if (entry === "over_share") {
      this.warnIfSingleCaller(caller);
      this.shed(req, res, workClass, "caller_share");
    }
  }

  /**
   * What skips the lanes (probes, static files: lib/routes UNQUEUED) is never queued and has no shared bound, but one
   * caller holds at most `unqueuedPerCaller` of it at once (a 429 past it), so a flood of probes from one address
   * cannot take the event loop from everyone else. A monitor probing once a second never comes near it.
   */
  private readonly unqueued = new Map<string, number>();

  private admitUnqueued(req: IncomingMessage, res: ServerResponse, caller: string, handle: (hadTurn: boolean) => void): void {
    const limit = this.options.unqueuedPerCaller;
    if (limit === undefined) return handle(false);
    const held = this.unqueued.get(caller) ?? 0;
    if (held >= limit || (this.options.chargeUnqueued && !this.options.chargeUnqueued(req, caller))) {
      this.options.onShed?.("unqueued", "caller_share");
      return this.options.refuse(req, res, null, "caller_share");
    }
    this.unqueued.set(caller, held + 1);
    res.once("close", () => {
      const now = (this.unqueued.get(caller) ?? 1) - 1;
      if (now <= 0) this.unqueued.delete(caller);
      else this.unqueued.set(caller, now);
    });
    handle(false);
  }

  /** The caller key of the latest request, and since when every request has come from it. */
  private lastCaller = "";
  private lastCallerSince = 0;
  private warnedSingleCaller = false;

  private now(): number {
    return this.options.now ? this.options.now() : performance.now();
  }

  private noteCaller(caller: string): void {
    if (caller === this.lastCaller) return;
    this.lastCaller = caller;
    this.lastCallerSince = this.now();
  }

  private warnIfSingleCaller(caller: string): void {
    if (this.warnedSingleCaller || !this.options.onSingleCaller) return;
    if (this.now() - this.lastCallerSince < SINGLE_CALLER_SECONDS * 1000) return;
    this.warnedSingleCaller = true;
    this.options.onSingleCaller(caller);
  }

  private heapRefuses(workClass: WorkClass): boolean {
    if (workClass === "account" || workClass === "token") return false;
    const share = this.heap.share();
    if (workClass === "public") return share >= this.options.heapShedShare;
    return share >= (1 + this.options.heapShedShare) / 2;
  }

  private shed(req: IncomingMessage, res: ServerResponse, workClass: WorkClass, reason: ShedReason): void {
    this.options.onShed?.(workClass, reason);
    this.options.refuse(req, res, workClass, reason);
  }
}
