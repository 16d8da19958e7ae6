// Under `next start` a route handler sees only headers, and Next copies a client-sent X-Forwarded-For
// verbatim. This stamps each request with its socket address, replacing any client-sent copy, before
// Next reads it, so TRUSTED_PROXY=none really means "the socket address".
import http from "node:http";
import { PEER_HEADER } from "./client-ip";

const PATCHED = Symbol.for("agent-gate.peer-stamp");

export function installPeerStamp(): void {
  const proto = http.Server.prototype as http.Server & { [PATCHED]?: boolean };
  if (proto[PATCHED]) return;
  proto[PATCHED] = true;
  const originalEmit = proto.emit;
  proto.emit = function emit(this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "request") {
      const req = args[0] as http.IncomingMessage;
      req.headers[PEER_HEADER] = req.socket?.remoteAddress ?? "unknown";
    }
    return Reflect.apply(originalEmit, this, [event, ...args]) as boolean;
  } as typeof proto.emit;
}
