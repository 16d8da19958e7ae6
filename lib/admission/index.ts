// Admission control for `npm start` (server.ts's request listener): every request belongs to a class of work,
// each class has its own bounded lane (lib/admission/lane.ts), and what a full lane cannot take is refused at once
// with HTTP 503 + Retry-After. Classes are apart so that a burst of one kind never starves another: a flood of
// anonymous searches leaves own-account reads, the token endpoint and sign-in pages their own room, and the
// probes (/healthz, /readyz, /metrics) and Next's static files are never queued. When the V8 heap fills up,
// anonymous costly work is refused first, then everything but own-account reads and tokens (lib/admission/heap.ts).
// On Vercel the platform bounds each function's concurrency itself; this module is not mounted there.
import type { IncomingMessage, ServerResponse } from "node:http";
import { AdmissionLane, type LaneBounds } from "./lane";
import { HeapPressure } from "./heap";
import type { Pacer } from "./pacer";

export const WORK_CLASSES = ["account", "token", "pages", "public", "general"] as const;
/**
 * account: own-account reads (the Bearer routes); token: the token and revocation endpoints; pages: sign-in and
 * signed-in pages and their form posts; public: anonymous costly reads and writes (MCP, A2A, /ask, batch, the
 * simulator, registration, the map search); general: every other page, twin, document and discovery file.
 */
export type WorkClass = (typeof WORK_CLASSES)[number];

/** Why a request was refused: its lane's queue was full, it waited too long, or the heap is nearly full. */
export type ShedReason = "queue_full" | "queue_timeout" | "heap";

export type AdmissionBounds = Record<WorkClass, LaneBounds>;

/** Each class's bounds from the configuration (lib/config: ADMISSION_*), all with the same longest wait. */
export function admissionBounds(lanes: Record<WorkClass, { inFlight: number; queue: number }>, maxWaitMs: number): AdmissionBounds {
  const bounds = {} as AdmissionBounds;
  for (const workClass of WORK_CLASSES) bounds[workClass] = { ...lanes[workClass], maxWaitMs };
  return bounds;
}

export interface AdmissionOptions {
  bounds: AdmissionBounds;
  /** Heap use (share of V8's limit) from which `public` work is refused; `general` and `pages` from halfway to 1. */
  heapShedShare: number;
  /** Answers a refused request (HTTP 503 with Retry-After, in the body shape of its surface). */
  refuse: (req: IncomingMessage, res: ServerResponse, workClass: WorkClass, reason: ShedReason) => void;
  /** Counts a refusal (the metrics). */
  onShed?: (workClass: WorkClass, reason: ShedReason) => void;
  heap?: HeapPressure;
  /**
   * Starts the heavy classes' work (lib/admission/pacer.ts); own-account reads and tokens start at once. None
   * (TURNS=off): every class starts as soon as its lane admits it.
   */
  pacer?: Pacer;
}

/** Classes whose work is started by the pacer; the others are cheap enough to run as soon as they are admitted. */
const PACED: ReadonlySet<WorkClass> = new Set(["pages", "public", "general"]);

const OWN_ACCOUNT_PATHS = new Set(["/api/v1/agent/account", "/api/v1/agent/registrations"]);
const TOKEN_PATHS = new Set(["/oauth2/token", "/oauth2/revoke"]);
const PAGE_PATHS = new Set(["/login", "/account", "/account/revoke", "/agent/authorize", "/agent/authorize/decision", "/agent/authorize/done"]);
const PUBLIC_PATHS = new Set(["/mcp", "/mcp/docs", "/a2a", "/ask", "/api/v1/batch", "/api/v1/sandbox/simulate", "/agent/identity", "/agent/identity/claim", "/api/map/search"]);
/** Answered from memory in microseconds: never queued, so an operator can always see the process. */
const UNBOUNDED_PATHS = new Set(["/healthz", "/readyz", "/metrics", "/favicon.ico", "/robots.txt"]);

/** The JSON-RPC surfaces: their refusals are JSON-RPC errors. */
export const JSON_RPC_PATHS: ReadonlySet<string> = new Set(["/mcp", "/mcp/docs", "/a2a"]);

/** The path of a request target, without its query. */
export function pathOf(url: string | undefined): string {
  const raw = url ?? "/";
  const mark = raw.indexOf("?");
  return mark < 0 ? raw : raw.slice(0, mark);
}

/**
 * The internal target of proxy.ts's markdown rewrites. Next's custom server may run a rewrite as a second request to
 * this same server: that request gets a lane of its own, as wide as the general lane's slots and queue together, so
 * twins that hold every general slot never wait for slots their own second requests need, and a client that calls
 * the target directly is still bounded.
 */
const REWRITE_TARGET_PREFIX = "/page-markdown";

/** The class of work of a request path, or null for what is never queued. */
export function classify(path: string): WorkClass | null {
  if (OWN_ACCOUNT_PATHS.has(path)) return "account";
  if (UNBOUNDED_PATHS.has(path) || path.startsWith("/_next/static/")) return null;
  if (TOKEN_PATHS.has(path)) return "token";
  if (PAGE_PATHS.has(path) || path.startsWith("/api/auth/")) return "pages";
  if (PUBLIC_PATHS.has(path)) return "public";
  return "general";
}

/** Whether a request is never queued (probes, static files): it needs no turn either. */
export function isUnqueued(url: string | undefined): boolean {
  return classify(pathOf(url)) === null;
}

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
  private readonly pacer: Pacer | undefined;
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
   * given back when the answer is finished or the connection closes, whichever comes first. `handle` learns whether
   * the request has had its pacer turn (then it needs no other).
   */
  admit(req: IncomingMessage, res: ServerResponse, handle: (hadTurn: boolean) => void): void {
    const path = pathOf(req.url);
    const workClass = classify(path);
    if (workClass === null) return handle(false);
    if (this.heapRefuses(workClass)) return this.shed(req, res, workClass, "heap");
    const lane = path.startsWith(REWRITE_TARGET_PREFIX) ? this.rewrites : this.lanes[workClass];
    const start = (): void => {
      res.once("close", () => lane.leave());
      if (!this.pacer || !PACED.has(workClass)) return handle(false);
      this.pacer.run(
        () => {
          // A client that left while its job waited: its connection's close has given the slot back already.
          if (!gone()) handle(true);
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
    const entry = lane.enter(start, () => this.shed(req, res, workClass, "queue_timeout"), gone);
    if (entry === "refused") this.shed(req, res, workClass, "queue_full");
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
