// Under `next start` a route handler sees only headers, and Next copies a client-sent X-Forwarded-For
// verbatim. This stamps each request with its socket address, replacing any client-sent copy, before
// Next reads it, so TRUSTED_PROXY=none really means "the socket address". The same hook lets the
// node:http front (lib/front) answer its paths before Next sees them, and hands the others to Next one
// per event-loop turn (lib/turns), so a saturated server keeps admitting new connections.
import http from "node:http";
import type { TurnQueue } from "@/lib/turns";
import { PEER_HEADER } from "./client-ip";

const PATCHED = Symbol.for("agent-gate.peer-stamp");

/** Answers a request itself (true) or leaves it to the server's own listener (false). */
export type RequestInterceptor = (req: http.IncomingMessage, res: http.ServerResponse) => boolean;

export interface RequestHookOptions {
  /** Takes the requests it answers (the node:http front). */
  intercept?: RequestInterceptor;
  /** Hands every other request to the server's listener on its turn; none: at once. */
  turns?: TurnQueue;
}

type Emit = http.Server["emit"];

/** Whether the client is gone (it closed the connection while its request waited for a turn). */
function abandoned(req: http.IncomingMessage): boolean {
  return req.destroyed || req.socket.destroyed;
}

/** Wraps a server's (or the prototype's) emit so that every "request" event goes through the hook. */
export function hookRequests(target: { emit: Emit }, options: RequestHookOptions): void {
  const originalEmit = target.emit;
  const { intercept, turns } = options;
  target.emit = function emit(this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    const dispatch = (): boolean => Reflect.apply(originalEmit, this, [event, ...args]) as boolean;
    if (event !== "request") return dispatch();
    const req = args[0] as http.IncomingMessage;
    const res = args[1] as http.ServerResponse;
    req.headers[PEER_HEADER] = req.socket?.remoteAddress ?? "unknown";
    if (intercept?.(req, res)) return true;
    if (!turns) return dispatch();
    turns.run(() => {
      // Work for a client that gave up is skipped: under load it would only delay the others.
      if (abandoned(req)) return;
      try {
        dispatch();
      } catch {
        res.destroy();
      }
    });
    return true;
  } as Emit;
}

/** Installs the hook on every node:http server of the process (once). */
export function installPeerStamp(options: RequestHookOptions = {}): void {
  const proto = http.Server.prototype as http.Server & { [PATCHED]?: boolean };
  if (proto[PATCHED]) return;
  proto[PATCHED] = true;
  hookRequests(proto, options);
}
