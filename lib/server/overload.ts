// Writes the answer to a request that admission control refused (lib/admission): HTTP 503 + Retry-After in the shape
// of its surface (lib/http/errors.ts overloadedReply). The request's body, if any, is read and dropped first, up to
// a bound: answering and closing with unread bytes in the socket makes the kernel reset the connection, and the client
// would see a socket error instead of the 503 it can act on.
import type { IncomingMessage, ServerResponse } from "node:http";
import { JSON_RPC_PATHS, pathOf, type WorkClass } from "@/lib/admission";
import { overloadedReply } from "@/lib/http/errors";
import { hasBodyFraming, writeReply } from "./front/node";

/** A refused request's body is drained up to this many bytes; past it the connection is closed instead. */
const DRAIN_LIMIT_BYTES = 1024 * 1024;
/** A body that has not arrived by then is not waited for. */
const DRAIN_WAIT_MS = 2000;

function surfaceOf(req: IncomingMessage, workClass: WorkClass): "json-rpc" | "page" | "rest" {
  if (JSON_RPC_PATHS.has(pathOf(req.url))) return "json-rpc";
  const browsing = (workClass === "pages" || workClass === "general") && req.method === "GET" && (req.headers.accept ?? "").includes("text/html");
  return browsing ? "page" : "rest";
}

export function writeOverloaded(req: IncomingMessage, res: ServerResponse, workClass: WorkClass): void {
  if (res.headersSent || res.destroyed) return;
  const reply = overloadedReply(surfaceOf(req, workClass));
  const write = (): void => {
    if (res.headersSent || res.destroyed) return;
    try {
      writeReply(req, res, reply);
    } catch {
      res.destroy();
    }
  };
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
