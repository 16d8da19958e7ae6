// The paths the node:http front (lib/server/front) answers under `npm start`, each with the handler its route
// file mounts. The table names handlers of every surface, so it lives up here; lib/server/front holds only the
// mechanism. Add a path only with a case in tests/http/node-front.test.ts (DEVELOPING.md).
import { handleA2aRequest } from "@/lib/a2a/jsonrpc";
import { serveOwnAccountRoute } from "@/lib/agent-api";
import { askReply } from "@/lib/docs/responses";
import { faviconReply, robotsReply } from "@/lib/discovery/robots";
import { serveCommunityMcp } from "@/lib/mcp/community";
import { aliveReply, readyReply } from "@/lib/operator/health";
import { frontFor, type FrontHandler, type FrontRoutes } from "@/lib/server/front";
import { handleToken } from "@/lib/service-auth/http";

const ownAccount =
  (route: "account" | "registrations"): FrontHandler =>
  (request) =>
    serveOwnAccountRoute(request, route);

/** Path → method → handler, the same handlers the route files use. Exact paths only: Next normalises anything else. */
export const FRONT_ROUTES: FrontRoutes = {
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

/** server.ts's front: answers FRONT_ROUTES' requests and returns true; false leaves the request to Next. */
export const serveFront = frontFor(FRONT_ROUTES);
