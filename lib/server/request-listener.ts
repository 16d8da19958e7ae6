// The server's one request listener (server.ts), in these steps:
// 1. Stamp each request with its socket address (PEER_HEADER), replacing any client-sent copy. A route
//    handler under Next sees only headers, and Next copies a client-sent X-Forwarded-For verbatim, so
//    TRUSTED_PROXY=none really means "the socket address" only thanks to this stamp. Its caller key is derived
//    once and stamped too (CALLER_HEADER), for the shares here and the budgets and log line after.
// 2. Look up its route (lib/routes, handed in).
// 3. Wait for its whole body (./body-gate.ts): until then it holds no slot of any class.
// 4. A signed request whose agent's key directory is cached is verified once (issue 44; lib/agent-identity, handed
//    in): the result is stamped (AGENT_HEADER, any client-sent copy is always removed) for the handler, and a verified
//    agent's request takes the agent's admission share instead of its address's.
// 5. Admit it (lib/admission): its class of work runs it now, queues it, or refuses it at once (503; 429 past the
//    caller's share).
// 6. Answer an unknown file under /_next/static/ with a bare 404, and let the node:http front (lib/server/front) answer
//    the paths it serves.
// 7. Hand every other request to Next one per event-loop turn (lib/server/turns), so a saturated server
//    keeps admitting new connections; a request whose client has left meanwhile is skipped. It is stamped with its
//    target as received (TARGET_HEADER: Next's request.url loses a `__proto__` query parameter).
import type http from "node:http";
import type { AdmissionTicket, WorkClass } from "@/lib/admission";
import { pathOf, TARGET_HEADER } from "@/lib/http/api";
import { AGENT_HEADER, CALLER_HEADER, PEER_HEADER } from "@/lib/http/client-ip";
import { markServerEntry } from "@/lib/http/server-entry";
import { errorLog } from "@/lib/observability/log";
import type { TurnQueue } from "@/lib/server/turns";

/** Answers a request itself (true) or leaves it to the next handler (false). */
export type FrontServer = (req: http.IncomingMessage, res: http.ServerResponse) => boolean;

/** Next's request handler (app.getRequestHandler()), or any node:http listener. */
export type NextHandler = (req: http.IncomingMessage, res: http.ServerResponse) => unknown;

/**
 * The X-Request-Id of a request being answered (set by `observe`; written by the front or before Next). It rides
 * on the request under a symbol: a WeakMap entry per request cost more than the rest of the bookkeeping.
 */
const REQUEST_ID = Symbol("agent-gate.request-id");
type IdentifiedRequest = http.IncomingMessage & { [REQUEST_ID]?: string };

/** The request id `observe` gave this request, if any. */
export function requestIdOf(req: http.IncomingMessage): string | undefined {
  return (req as IdentifiedRequest)[REQUEST_ID];
}

export interface RequestListenerOptions {
  /** Headers every answer Next gives carries too (the front has them in its own list: lib/server/front/node.ts). */
  responseHeaders?: readonly (readonly [name: string, value: string])[];
  /**
   * Sees every request first (one log line and metric sample when it is answered: lib/server/observe.ts) and
   * returns its request id, which the answer carries as X-Request-Id.
   */
  observe?: (req: http.IncomingMessage, res: http.ServerResponse) => string | void;
  /** Takes the requests it answers (the node:http front); none: everything goes to `next`. */
  front?: FrontServer;
  /** Hands every other request to `next` on its turn; none: at once. */
  turns?: TurnQueue;
  /** Runs each request now, on its class's turn, or answers it with a refusal (lib/admission); none: all at once. */
  admission?: { admit(req: http.IncomingMessage, res: http.ServerResponse, ticket: AdmissionTicket, handle: (hadTurn: boolean) => void): void };
  /** A request path's class of work and body limit (lib/routes); none: every request is general work of any size. */
  route?: (path: string) => ListenerRoute;
  /**
   * A request's caller key (lib/http/client-ip.ts deriveCallerKey), for the per-caller shares; stamped as CALLER_HEADER
   * for the handlers' budgets and the log line. None: no caller key (the stamp is empty).
   */
  callerOf?: (req: http.IncomingMessage) => string;
  /**
   * The verified agent of a signed request, without network (lib/agent-identity listenerIdentity): its stamp
   * (AGENT_HEADER) for the handler, and the caller key admission counts it under (null: the address's). Undefined:
   * nothing to stamp (unsigned, or its directory is not cached: the handler verifies). None: nothing is verified here.
   */
  identify?: (req: http.IncomingMessage, route: ListenerRoute) => Promise<{ stamp: string | null; agentKey: string | null }> | undefined;
  /** Holds each request until its whole body has arrived, or refuses it (./body-gate.ts); none: at once. */
  bodyGate?: { receive(req: http.IncomingMessage, res: http.ServerResponse, limit: number, caller: string, ready: () => void): void };
  /** Answers a request for a file under /_next/static/ that the build does not have (a bare 404); false: not one. */
  missingStaticFile?: (req: http.IncomingMessage, res: http.ServerResponse, path: string) => boolean;
}

/** What the listener needs of a route (lib/routes RoutePolicy). */
export interface ListenerRoute {
  workClass: WorkClass | null;
  bodyLimit: number;
}

const GENERAL_ROUTE: ListenerRoute = { workClass: "general", bodyLimit: Infinity };

/** Whether the client is gone (it closed the connection while its request waited for a turn). */
function abandoned(req: http.IncomingMessage): boolean {
  return req.destroyed || req.socket.destroyed;
}

/** Runs `next`; a failure it does not answer itself ends the connection (never an internal message to the client). */
function handOver(next: NextHandler, req: http.IncomingMessage, res: http.ServerResponse, responseHeaders: RequestListenerOptions["responseHeaders"]): void {
  // Only what Next answers needs the target as received (the front reads req.url itself).
  req.headers[TARGET_HEADER] = req.url ?? "/";
  const requestId = requestIdOf(req);
  if (requestId !== undefined) res.setHeader("X-Request-Id", requestId);
  if (responseHeaders) for (const [name, value] of responseHeaders) res.setHeader(name, value);
  const dropOnFailure = (error: unknown): void => {
    errorLog(error, "next request handler");
    res.destroy();
  };
  try {
    const done = next(req, res);
    // Next's handler is async; a plain node:http listener returns nothing (or whatever res.end() returned).
    if (done instanceof Promise) done.catch(dropOnFailure);
  } catch (error) {
    dropOnFailure(error);
  }
}

/** The listener for http.createServer: peer stamp → admission → front → turns → `next`. */
export function requestListener(next: NextHandler, options: RequestListenerOptions = {}): http.RequestListener {
  const { observe, front, turns, responseHeaders, admission, route: routeOf, callerOf, identify, bodyGate, missingStaticFile } = options;
  // This listener stamps every request's peer header: from now on that header is this process's own (client-ip.ts).
  markServerEntry();
  const dispatch = (req: http.IncomingMessage, res: http.ServerResponse, route: ListenerRoute, hadTurn: boolean): void => {
    if (route.workClass === null && missingStaticFile?.(req, res, pathOf(req.url))) return;
    if (front?.(req, res)) return;
    // Probes and static files take no turn: with the front off they still answer during a burst. Work admission
    // started on its turn does not queue again.
    if (!turns || hadTurn || route.workClass === null) return handOver(next, req, res, responseHeaders);
    turns.run(() => {
      // Work for a client that gave up is skipped: under load it would only delay the others.
      if (!abandoned(req)) handOver(next, req, res, responseHeaders);
    });
  };
  return (req, res) => {
    req.headers[PEER_HEADER] = req.socket?.remoteAddress ?? "unknown";
    // Derived once, before anything reads it; a client-sent copy is replaced (empty: callerKey derives it itself).
    const caller = callerOf?.(req) ?? "";
    req.headers[CALLER_HEADER] = caller;
    // Only this listener writes the agent stamp (a delete only when present: it would slow every request's headers).
    if (req.headers[AGENT_HEADER] !== undefined) delete req.headers[AGENT_HEADER];
    const requestId = observe?.(req, res);
    if (requestId) (req as IdentifiedRequest)[REQUEST_ID] = requestId;
    const path = pathOf(req.url);
    const route = routeOf?.(path) ?? GENERAL_ROUTE;
    const admitAs = (admissionCaller: string): void => {
      if (!admission) return dispatch(req, res, route, false);
      admission.admit(req, res, { workClass: route.workClass, caller: admissionCaller }, (hadTurn) => dispatch(req, res, route, hadTurn));
    };
    const admit = (): void => {
      // Unsigned requests (and those the handler verifies) go on synchronously, exactly as before.
      const identified = identify?.(req, route);
      if (identified === undefined) return admitAs(caller);
      identified.then(
        (agent) => {
          if (agent.stamp !== null) req.headers[AGENT_HEADER] = agent.stamp;
          admitAs(agent.agentKey ?? caller);
        },
        () => admitAs(caller),
      );
    };
    if (!bodyGate) return admit();
    bodyGate.receive(req, res, route.bodyLimit, caller, admit);
  };
}
