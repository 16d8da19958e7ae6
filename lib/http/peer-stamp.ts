// Under `next start` a route handler sees only headers, and Next copies a client-sent X-Forwarded-For
// verbatim. This stamps each request with its socket address, replacing any client-sent copy, before
// Next reads it, so TRUSTED_PROXY=none really means "the socket address". The same hook lets the
// node:http front (lib/front) answer its paths before Next sees them.
import http from "node:http";
import { PEER_HEADER } from "./client-ip";

const PATCHED = Symbol.for("agent-gate.peer-stamp");

/** Answers a request itself (true) or leaves it to the server's own listener (false). */
export type RequestInterceptor = (req: http.IncomingMessage, res: http.ServerResponse) => boolean;

export function installPeerStamp(intercept?: RequestInterceptor): void {
  const proto = http.Server.prototype as http.Server & { [PATCHED]?: boolean };
  if (proto[PATCHED]) return;
  proto[PATCHED] = true;
  const originalEmit = proto.emit;
  proto.emit = function emit(this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "request") {
      const req = args[0] as http.IncomingMessage;
      req.headers[PEER_HEADER] = req.socket?.remoteAddress ?? "unknown";
      if (intercept?.(req, args[1] as http.ServerResponse)) return true;
    }
    return Reflect.apply(originalEmit, this, [event, ...args]) as boolean;
  } as typeof proto.emit;
}
