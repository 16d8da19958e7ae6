// The node:http front's table (lib/server/front), derived from the route table: the paths and methods are the
// entries' `front`, the handlers are the ones their route files mount. The handler map is typed by the table, so an
// entry's front method without its handler, or a handler for a path or method the table does not give the front,
// fails the typecheck. Only server.ts loads this module (it imports handlers of every surface; lib/routes itself
// stays light for proxy.ts). Add a front method only with a case in tests/http/node-front.test.ts (DEVELOPING.md).
import { handleA2aRequest } from "@/lib/a2a/jsonrpc";
import { serveOwnAccountRoute } from "@/lib/agent-api";
import { askReply } from "@/lib/docs/responses";
import { faviconReply, robotsReply } from "@/lib/discovery/robots";
import { serveCommunityMcp } from "@/lib/mcp/community";
import { aliveReply, readyReply } from "@/lib/operator/health";
import { frontFor, type FrontHandler, type FrontRoutes } from "@/lib/server/front";
import { handleToken } from "@/lib/service-auth/http";
import { ROUTES, type Route, type RouteEntry, type RouteMethod } from "@/lib/routes";

/** The methods the front answers on a path, per the table. */
type FrontMethodsOf<Path extends string> = Route extends infer Entry ? (Entry extends RouteEntry<Path, infer Front> ? Front : never) : never;
/** The paths with at least one front method. */
type FrontPath = Route extends infer Entry ? (Entry extends RouteEntry<infer Path, infer Front> ? ([Front] extends [never] ? never : Path) : never) : never;

const ownAccount =
  (route: "account" | "registrations"): FrontHandler =>
  (request) =>
    serveOwnAccountRoute(request, route);

/** Each front path's handlers: exactly the table's front methods, the same handlers the route files use. */
const HANDLERS: { readonly [Path in FrontPath]: { readonly [Method in FrontMethodsOf<Path>]: FrontHandler } } = {
  "/oauth2/token": { POST: (request) => handleToken(request) },
  "/api/v1/agent/account": { GET: ownAccount("account"), HEAD: ownAccount("account") },
  "/api/v1/agent/registrations": { GET: ownAccount("registrations"), HEAD: ownAccount("registrations") },
  "/ask": { GET: askReply, HEAD: askReply },
  "/mcp": { POST: (request) => serveCommunityMcp(request) },
  "/a2a": { POST: (request) => handleA2aRequest(request) },
  "/healthz": { GET: aliveReply, HEAD: aliveReply },
  "/readyz": { GET: readyReply, HEAD: readyReply },
  "/robots.txt": { GET: async (request) => robotsReply(request), HEAD: async (request) => robotsReply(request) },
  "/favicon.ico": { GET: async () => faviconReply(), HEAD: async () => faviconReply() },
};

const handlerOf = (path: string, method: RouteMethod): FrontHandler => (HANDLERS as Record<string, Record<string, FrontHandler>>)[path]![method]!;

/** Path → method → handler, for the table's front entries only. Exact paths only: Next normalises anything else. */
export const FRONT_ROUTES: FrontRoutes = Object.fromEntries(
  (ROUTES as readonly RouteEntry[])
    .filter((route) => route.front.length > 0)
    .map((route) => [route.path, Object.fromEntries(route.front.map((method) => [method, handlerOf(route.path, method)]))]),
);

/** server.ts's front: answers FRONT_ROUTES' requests and returns true; false leaves the request to Next. */
export const serveFront = frontFor(FRONT_ROUTES);
