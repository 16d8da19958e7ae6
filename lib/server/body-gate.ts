// The body gate of server.ts's request listener (issue 41): a request joins its class's queue (lib/admission) only
// once its whole body has arrived, so a client that trickles bytes holds no slot of any class. While a body arrives:
// - it is refused with 413 before it is read when its Content-Length passes the route's limit (lib/routes), and as
//   soon as a chunked body does (with `Expect: 100-continue`, before the client sends a byte of it);
// - it must be whole within the request deadline, and arrive at a minimum rate once a short grace has passed: a client
//   that misses either gets 408 and its connection is closed (Node's own headersTimeout and requestTimeout are set to
//   the same deadline in server.ts, for the headers and for requests the gate never sees);
// - the bodies being read at once are bounded, as are the bytes they may hold, and one caller key holds at most its
//   share of each (a 429 past it; a 503 when every caller together is at the bound).
// The body read is put back in the request (Readable.unshift, before its 'end'), so whoever answers it (the node:http
// front or Next) reads it as it would have from the socket.
import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The body the gate read, on the request under a symbol: the node:http front (./front/node.ts) takes it from here instead
 * of reading the stream again; Next reads the stream, where the same bytes were put back.
 */
const GATED_BODY = Symbol("agent-gate.gated-body");
type GatedRequest = IncomingMessage & { [GATED_BODY]?: Buffer };

/** The whole body the gate read for this request, or undefined when it read none (no gate, or no body). */
export function gatedBodyOf(req: IncomingMessage): Buffer | undefined {
  return (req as GatedRequest)[GATED_BODY];
}

/** Why the gate answered a request itself. */
export type BodyRefusal = "too_large" | "timeout" | "caller_share" | "busy";

export interface BodyGateBounds {
  /** Headers and body must be whole within this many milliseconds of the request's start. */
  deadlineMs: number;
  /** After `graceMs`, a body must have arrived at this average rate (bytes per second) so far. */
  minBytesPerSecond: number;
  graceMs: number;
  /** Bodies being read at once, and the bytes they may hold (declared lengths; a chunked body holds its limit). */
  readers: number;
  bufferBytes: number;
  /** One caller's share of `readers` and `bufferBytes` (0..1). */
  callerShare: number;
}

export interface BodyGateOptions {
  bounds: BodyGateBounds;
  /** Answers a request the gate refuses (413, 408, 429 or 503 in the shape of its route). */
  refuse: (req: IncomingMessage, res: ServerResponse, refusal: BodyRefusal) => void;
  now?: () => number;
}

interface Reader {
  req: IncomingMessage;
  res: ServerResponse;
  caller: string;
  reserved: number;
  received: number;
  startedAt: number;
  done: boolean;
}

interface CallerUse {
  readers: number;
  bytes: number;
}

/** The declared body length, null when the body is chunked, 0 when the request has none. */
function declaredLength(req: IncomingMessage): number | null {
  const length = req.headers["content-length"];
  // node:http has checked it is one run of digits (a repeated, different value is a parse error).
  if (length !== undefined) return Number(length);
  return req.headers["transfer-encoding"] !== undefined ? null : 0;
}

export class BodyGate {
  private readonly readers = new Set<Reader>();
  private readonly callers = new Map<string, CallerUse>();
  private bytesReserved = 0;
  private sweeper: NodeJS.Timeout | undefined;
  private readonly perCallerReaders: number;
  private readonly perCallerBytes: number;

  constructor(private readonly options: BodyGateOptions) {
    const { bounds } = options;
    this.perCallerReaders = Math.max(1, Math.ceil(bounds.readers * bounds.callerShare));
    this.perCallerBytes = Math.max(1, Math.ceil(bounds.bufferBytes * bounds.callerShare));
  }

  /** Bodies being read now (for tests and /metrics). */
  get reading(): number {
    return this.readers.size;
  }

  /** Starts the timer that enforces the deadline and the minimum rate (unref'd). */
  start(): this {
    this.sweeper ??= setInterval(() => this.sweep(), 250);
    this.sweeper.unref();
    return this;
  }

  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /**
   * Calls `ready` once the request's whole body (at most `limit` bytes) has arrived, at once for a request without one;
   * or answers the request with a refusal and never calls it.
   */
  receive(req: IncomingMessage, res: ServerResponse, limit: number, caller: string, ready: () => void): void {
    const declared = declaredLength(req);
    if (declared === 0) return ready();
    if (declared !== null && declared > limit) return this.options.refuse(req, res, "too_large");
    const reserved = declared ?? limit;
    const use = this.callers.get(caller) ?? { readers: 0, bytes: 0 };
    if (use.readers >= this.perCallerReaders || use.bytes + reserved > this.perCallerBytes) return this.options.refuse(req, res, "caller_share");
    if (this.readers.size >= this.options.bounds.readers || this.bytesReserved + reserved > this.options.bounds.bufferBytes) {
      return this.options.refuse(req, res, "busy");
    }
    use.readers += 1;
    use.bytes += reserved;
    this.callers.set(caller, use);
    this.bytesReserved += reserved;
    const reader: Reader = { req, res, caller, reserved, received: 0, startedAt: this.now(), done: false };
    this.readers.add(reader);

    const chunks: Buffer[] = [];
    const finish = (): void => {
      req.off("readable", onReadable).off("close", onClose);
      this.release(reader);
    };
    const onReadable = (): void => {
      if (reader.done) return;
      for (let chunk = req.read() as Buffer | null; chunk !== null; chunk = req.read() as Buffer | null) {
        reader.received += chunk.length;
        if (reader.received > limit) {
          finish();
          return this.options.refuse(req, res, "too_large");
        }
        chunks.push(chunk);
      }
      // The parser marks the message complete before it ends the stream, so the last read() above found the end: the
      // body goes back in front of it, and 'end' is emitted only once whoever answers has read it.
      if (!req.complete) return;
      finish();
      if (reader.received > 0) {
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, reader.received);
        (req as GatedRequest)[GATED_BODY] = body;
        req.unshift(body);
      }
      ready();
    };
    const onClose = (): void => finish();
    req.on("readable", onReadable).once("close", onClose);
    // A client that asked before sending its body (Expect: 100-continue; server.ts routes 'checkContinue' here) is told
    // to go on only now, once the body is known to fit.
    if (/^100-continue$/i.test(req.headers.expect ?? "")) res.writeContinue();
  }

  /** Refuses the readers past the deadline or below the minimum rate (a timer calls it). */
  sweep(): void {
    const now = this.now();
    const { deadlineMs, graceMs, minBytesPerSecond } = this.options.bounds;
    for (const reader of this.readers) {
      const elapsed = now - reader.startedAt;
      const tooSlow = elapsed > graceMs && reader.received < (minBytesPerSecond * elapsed) / 1000;
      if (elapsed <= deadlineMs && !tooSlow) continue;
      this.release(reader);
      this.options.refuse(reader.req, reader.res, "timeout");
    }
  }

  private release(reader: Reader): void {
    if (reader.done) return;
    reader.done = true;
    this.readers.delete(reader);
    this.bytesReserved -= reader.reserved;
    const use = this.callers.get(reader.caller);
    if (use === undefined) return;
    use.readers -= 1;
    use.bytes -= reader.reserved;
    if (use.readers === 0) this.callers.delete(reader.caller);
  }

  private now(): number {
    return this.options.now ? this.options.now() : performance.now();
  }
}
