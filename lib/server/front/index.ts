// The node:http front (issue 7, bench/README.md). Next's request pipeline (web-stream conversion, router
// server, tracing, module template) costs several times a hot route's own CPU before a route handler runs
// (figures: bench/README.md): that alone caps a route at a few hundred requests per second on two cores. The
// hottest API paths are therefore answered straight from node:http, by the very handlers their route files use
// (lib/http/api.ts), with the same security headers. Every other path, and every other method of these
// paths (405s, CORS preflights…), goes to Next unchanged. Only server.ts mounts the front: under a bare
// `next start` or on Vercel the route files answer these paths themselves.
import type { IncomingMessage, ServerResponse } from "node:http";
import { handleA2aRequest } from "@/lib/a2a/jsonrpc";
import { serveOwnAccountRoute } from "@/lib/agent-api";
import { askReply } from "@/lib/docs/responses";
import type { ApiReply, ApiRequest } from "@/lib/http/api";
import { errorToReply } from "@/lib/http/route";
import { serveCommunityMcp } from "@/lib/mcp/community";
import { aliveReply, readyReply } from "@/lib/operator/health";
import { handleToken } from "@/lib/service-auth/http";
import { apiRequestOf, writeReply } from "./node";

type FrontHandler = (request: ApiRequest, raw: IncomingMessage) => Promise<ApiReply>;

const ownAccount =
  (route: "account" | "registrations"): FrontHandler =>
  (request) =>
    serveOwnAccountRoute(request, route);

/** Path → method → handler, the same handlers the route files use. Exact paths only: Next normalises anything else. */
export const FRONT_ROUTES: Readonly<Record<string, Readonly<Partial<Record<string, FrontHandler>>>>> = {
  "/oauth2/token": { POST: (request) => handleToken(request) },
  "/api/v1/agent/account": { GET: ownAccount("account"), HEAD: ownAccount("account") },
  "/api/v1/agent/registrations": { GET: ownAccount("registrations"), HEAD: ownAccount("registrations") },
  "/ask": { GET: askReply, HEAD: askReply },
  "/mcp": { POST: (request) => serveCommunityMcp(request) },
  "/a2a": { POST: (request) => handleA2aRequest(request) },
  "/healthz": { GET: aliveReply, HEAD: aliveReply },
  "/readyz": { GET: readyReply, HEAD: readyReply },
};

function frontHandler(url: string, method: string): FrontHandler | undefined {
  const mark = url.indexOf("?");
  const path = mark < 0 ? url : url.slice(0, mark);
  const route = Object.hasOwn(FRONT_ROUTES, path) ? FRONT_ROUTES[path] : undefined;
  return route && Object.hasOwn(route, method) ? route[method] : undefined;
}

function writeOrDrop(req: IncomingMessage, res: ServerResponse, reply: ApiReply): void {
  try {
    writeReply(req, res, reply);
  } catch {
    res.destroy();
  }
}

/**
 * Answers the request when it is one of the front's and returns true; false leaves it to Next. Called for
 * every request the server receives, so a miss costs one lookup.
 */
export function serveFront(req: IncomingMessage, res: ServerResponse): boolean {
  const handler = req.url !== undefined && req.method !== undefined ? frontHandler(req.url, req.method) : undefined;
  if (handler === undefined) return false;
  // One promise per request (each costs async-hook work under Next): a failure is answered like route() does.
  void handler(apiRequestOf(req), req).then(
    (reply) => writeOrDrop(req, res, reply),
    (error: unknown) => writeOrDrop(req, res, errorToReply(error)),
  );
  return true;
}
