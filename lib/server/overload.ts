// Writes the answers server.ts's listener gives before any handler runs (lib/http/errors.ts builds them, in the shape
// of the route's surface, lib/routes):
// - admission control's refusals (lib/admission): 503 + Retry-After when a class is full, 429 + Retry-After when the
//   caller already holds its share;
// - the body gate's (./body-gate.ts): 413 for a body over its route's limit, 408 for one that did not arrive in time,
//   429 or 503 when the bodies being read are at the caller's share or at the bound.
// A refused request's body, if any, is read and dropped first, up to a bound, when it is still wanted: answering and
// closing with unread bytes in the socket makes the kernel reset the connection, and the client would see a socket
// error instead of the answer it can act on. A body over its limit or one that is late is never waited for.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ShedReason, WorkClass } from "@/lib/admission";
import { bodyTooLargeReply, callerShareReply, overloadedReply, requestTimeoutReply, type RefusalSurface } from "@/lib/http/errors";
import type { ApiReply } from "@/lib/http/api";
import type { BodyRefusal } from "./body-gate";
import { hasBodyFraming, writeOrDrop } from "./front/node";

/** A refused request's body is drained up to this many bytes; past it the connection is closed instead. */
const DRAIN_LIMIT_BYTES = 1024 * 1024;
/** A body that has not arrived by then is not waited for. */
const DRAIN_WAIT_MS = 2000;

/** The surface of a refused request: its route's JSON-RPC shape, a page for a browser's GET of a page, else REST. */
export function refusalSurface(req: IncomingMessage, shape: "rest" | "mcp" | "a2a", workClass: WorkClass | null): RefusalSurface {
  if (shape !== "rest") return shape;
  const browsing = (workClass === "pages" || workClass === "general") && req.method === "GET" && (req.headers.accept ?? "").includes("text/html");
  return browsing ? "page" : "rest";
}

/** Writes `reply` once the request's body (if any, up to DRAIN_LIMIT_BYTES and DRAIN_WAIT_MS) has been read and dropped. */
function writeAfterDrain(req: IncomingMessage, res: ServerResponse, reply: ApiReply): void {
  if (res.headersSent || res.destroyed) return;
  const write = (): void => writeOrDrop(req, res, reply);
  if (req.complete || !hasBodyFraming(req)) return write();
  let received = 0;
  const timer = setTimeout(write, DRAIN_WAIT_MS);
  timer.unref();
  req.on("data", (chunk: Buffer) => {
    received += chunk.length;
    if (received > DRAIN_LIMIT_BYTES) {
      clearTimeout(timer);
      write();
    }
  });
  req.once("end", () => {
    clearTimeout(timer);
    write();
  });
  req.once("error", () => clearTimeout(timer));
  req.resume();
}

/** Admission's refusal: 429 for a caller past its share, else 503 (lib/admission ShedReason). */
export function writeShed(req: IncomingMessage, res: ServerResponse, surface: RefusalSurface, reason: ShedReason): void {
  if (reason !== "caller_share") return writeAfterDrain(req, res, overloadedReply(surface));
  writeAfterDrain(req, res, callerShareReply(surface));
}

/** The body gate's refusal: a body too large or too late is not read further (its connection closes after the answer). */
export function writeBodyRefusal(req: IncomingMessage, res: ServerResponse, surface: RefusalSurface, refusal: BodyRefusal, limit: number, deadlineSeconds: number): void {
  switch (refusal) {
    case "too_large":
      return writeOrDrop(req, res, bodyTooLargeReply(surface, limit));
    case "timeout":
      return writeOrDrop(req, res, requestTimeoutReply(surface, deadlineSeconds));
    case "caller_share":
      return writeAfterDrain(req, res, callerShareReply(surface));
    case "busy":
      return writeAfterDrain(req, res, overloadedReply(surface));
  }
}

/**
 * How long a refusal of what skips admission (a probe or a static file past the caller's budget or share) waits before
 * it is written. Such requests cost microseconds each, so a client that asks again the instant it is answered (a flood
 * looping on its keep-alive connections) would otherwise take the whole event loop with refusals alone; held this long,
 * each of its connections asks at most a few times a second. Nothing shared is held meanwhile, and a monitor probing
 * once a second never meets it.
 */
export const UNQUEUED_REFUSAL_DELAY_MS = 200;

/** A refusal of unqueued work, written after UNQUEUED_REFUSAL_DELAY_MS (nothing is written if the client left). */
export function writeUnqueuedRefusal(req: IncomingMessage, res: ServerResponse, surface: RefusalSurface): void {
  setTimeout(() => writeShed(req, res, surface, "caller_share"), UNQUEUED_REFUSAL_DELAY_MS).unref();
}
