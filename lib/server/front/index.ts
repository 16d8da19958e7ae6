// The node:http front (issue 7, bench/README.md). Next's request pipeline (web-stream conversion, router
// server, tracing, module template) costs several times a hot route's own CPU before a route handler runs
// (figures: bench/README.md): that alone caps a route at a few hundred requests per second on two cores. The
// hottest API paths are therefore answered straight from node:http, by the very handlers their route files use
// (lib/http/api.ts), with the same security headers. Every other path, and every other method of these
// paths (405s, CORS preflights…), goes to Next unchanged. Only server.ts mounts the front: under a bare
// `next start` or on Vercel the route files answer these paths themselves.
import type { IncomingMessage, ServerResponse } from "node:http";
import { pathOf, type ApiReply, type ApiRequest } from "@/lib/http/api";
import { errorToReply, withTraceResponse } from "@/lib/http/route";
import { activeTraceId, traceHttpRequest, tracingOn } from "@/lib/tracing";
import { noteTraceId } from "../observe";
import { apiRequestOf, writeOrDrop } from "./node";

export type FrontHandler = (request: ApiRequest, raw: IncomingMessage) => Promise<ApiReply>;

/** Path → method → handler. Exact paths only: Next normalises anything else. */
export type FrontRoutes = Readonly<Record<string, Readonly<Partial<Record<string, FrontHandler>>>>>;

function frontHandler(routes: FrontRoutes, url: string, method: string): FrontHandler | undefined {
  const path = pathOf(url);
  const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
  return route && Object.hasOwn(route, method) ? route[method] : undefined;
}

/**
 * The front over a table of routes (the table is lib/routes/front.ts: it names handlers of every surface, which
 * this layer does not import). The function it returns answers the request when it is one of the table's and
 * returns true; false leaves it to Next. Called for every request the server receives, so a miss costs one lookup.
 */
export function frontFor(routes: FrontRoutes): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const handler = req.url !== undefined && req.method !== undefined ? frontHandler(routes, req.url, req.method) : undefined;
    if (handler === undefined) return false;
    const request = apiRequestOf(req);
    // One promise per request (each costs async-hook work under Next): a failure is answered like route() does.
    // Traces on: the request's span (lib/tracing) around the handler, its trace id for the request's log line.
    const answer = tracingOn() ? traceHttpRequest(request, () => (noteTraceId(req, activeTraceId()), handler(request, req).then(withTraceResponse))) : handler(request, req);
    void answer.then(
      (reply) => writeOrDrop(req, res, reply),
      (error: unknown) => writeOrDrop(req, res, errorToReply(error)),
    );
    return true;
  };
}
